package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/neuralnmf/neuralnmf/matio"
	"github.com/neuralnmf/neuralnmf/models/neuralnmf"
	"github.com/neuralnmf/neuralnmf/models/semisup"
)

func runFit(args []string, stdout, stderr io.Writer) error {
	f := newFitFlags(stderr)
	if err := parseFlags(f.fs, args, stderr); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	cfg, presetNote, err := f.config()
	if err != nil {
		return err
	}
	var prog *fitProgress
	if !*f.quiet {
		prog = newFitProgress(stderr)
	}
	d, err := f.read(prog, stderr)
	if err != nil {
		return err
	}
	rows, cols := d.dims()
	if rows == 0 || cols == 0 {
		return fmt.Errorf("%s is empty (%d×%d): there is nothing to factorise", d.from, rows, cols)
	}
	if cfg.BatchSize > 0 {
		cols = min(cols, max(cfg.BatchSize, neuralnmf.StartColumns)) // the start factorises the first batches
	}
	// The rank rules are the library's; the labels and the mask, read
	// below, are checked when training starts.
	early := cfg
	early.Supervision, early.DataMask = nil, nil
	if err := early.Validate(rows, cols); err != nil {
		return err
	}
	if cfg.Supervision, d.classNames, err = f.supervision(d, cfg.Supervision); err != nil {
		return err
	}
	if *f.dataMask != "" {
		w, err := matio.ReadMatrix(*f.dataMask)
		if err != nil {
			return err
		}
		cfg.DataMask = w.ToDense()
	}
	choosing := cfg.Supervision != nil && *f.choose && cfg.BatchSize == 0 && !cfg.Algorithm1 && *f.preset == ""
	var chooseOpt *semisup.ChooseOptions
	if choosing {
		if *f.readoutLayer < 0 || *f.readoutLayer > len(cfg.Ranks) {
			return usageError{fmt.Errorf("-readout-layer is %d: want 0 (each layer) or 1..%d, a layer of -ranks", *f.readoutLayer, len(cfg.Ranks))}
		}
		chooseOpt = &semisup.ChooseOptions{HoldOut: *f.holdOut, Folds: *f.folds, Patience: *f.patience, Layer: *f.readoutLayer}
		if *f.prior != "" {
			k, err := semisup.ParsePrior(*f.prior)
			if err != nil {
				return usageError{fmt.Errorf("-prior %s: %w", *f.prior, err)}
			}
			chooseOpt.Prior = k
		}
		for _, name := range strings.Split(*f.candidates, ",") {
			if name = strings.TrimSpace(name); name != "" {
				k, err := semisup.ParseKind(name)
				if err != nil {
					return usageError{fmt.Errorf("-candidates %s: %w", *f.candidates, err)}
				}
				chooseOpt.Kinds = append(chooseOpt.Kinds, k)
			}
		}
		if flagSet(f.fs, "candidates") && len(chooseOpt.Kinds) == 0 {
			return usageError{fmt.Errorf("-candidates %q names no kind of candidate: give one or more, separated by commas, or leave the flag out for the default", *f.candidates)}
		}
		if err := checkCandidates(chooseOpt, *f.candidates, *f.prior); err != nil {
			return err
		}
	}
	model, choice, ran, err := train(d, cfg, chooseOpt, prog, stderr)
	if err != nil {
		return err
	}
	model.Vectorizer, model.ClassNames = d.vectorizer, d.classNames
	if err := model.Save(*f.out); err != nil {
		return err
	}
	fmt.Fprint(stdout, presetNote)
	fmt.Fprintln(stdout, describeModel(cfg, choice, ran))
	if cfg.BatchSize > 0 {
		writeFitSummary(stdout, model.History, "passes of mini-batches")
	} else {
		writeFitSummary(stdout, model.History, "epochs")
	}
	if choice != nil {
		writeChoice(stdout, choice, model, d.x, cfg.Supervision)
	}
	warnPenalties(stderr, cfg, model, d.x)
	fmt.Fprintf(stdout, "wrote %s\n", *f.out)
	return nil
}

// describeModel says in flag terms how the returned model was trained,
// from what the library reported it ran (ran: the first stage of each fit,
// in order): with a choice (fit -labels), whether it is the unsupervised
// fit (the first), whose topics the chosen classifier reads, or a
// supervised one (the last: the refit, or the only fit).
func describeModel(cfg neuralnmf.Config, c *semisup.Choice, ran []neuralnmf.Stage) string {
	last := ran[len(ran)-1]
	if c == nil || c.Chosen < 0 {
		return describeConfig(cfg, last)
	}
	switch c.Candidates[c.Chosen].Kind {
	case semisup.SupervisedFit, semisup.SupervisedReadout, semisup.SupervisedTopicsWords:
		return "the model: the supervised fit refitted on all known labels; " + describeConfig(cfg, last)
	}
	return "the model: the unsupervised fit (trained without the labels) with the classifier chosen below; " + describeConfig(unsupervised(cfg), ran[0])
}

// train trains on d's X with progress on stderr (when prog is not nil),
// choosing what to do with the labels (semisup.TrainChoosing) when
// choose is not nil; the Choice is nil otherwise. It returns what the
// library reported each fit ran (its first stage), for describeModel.
func train(d *fitData, cfg neuralnmf.Config, choose *semisup.ChooseOptions, prog *fitProgress, stderr io.Writer) (*neuralnmf.Model, *semisup.Choice, []neuralnmf.Stage, error) {
	var ran []neuralnmf.Stage
	said := "" // the configuration last written
	cfg.Phase = func(s neuralnmf.Stage) {
		if s.Name == "start" && s.Restart == 1 { // a fit begins
			ran = append(ran, s)
			if prog != nil {
				user := cfg
				if s.Run.Supervision == nil {
					user = unsupervised(cfg)
				}
				if line := describeConfig(user, s); line != said {
					prog.note(line)
					said = line
				}
				prog.configure(s.Run)
			}
		}
		if prog == nil {
			return
		}
		switch s.Name {
		case "start":
			prog.phase(startPhase(s.Run, s.Restart))
		case "training":
			prog.training()
		}
	}
	if prog != nil {
		cfg.Progress = prog.epoch
		if choose != nil {
			o := *choose
			o.Fitting = func(what string) {
				prog.run(what) // writes the last fit's last epoch first
			}
			choose = &o
			fmt.Fprintln(stderr, "choosing what to do with the labels: an unsupervised fit, then the supervised validation fits, then the chosen candidate's refit if it is a supervised one; each fit's configuration is written as it starts, when it differs from the one before")
		}
	}
	var model *neuralnmf.Model
	var choice *semisup.Choice
	var err error
	if choose != nil {
		model, choice, err = semisup.TrainChoosing(d.data(), cfg, choose)
	} else {
		model, err = neuralnmf.Train(d.data(), cfg)
	}
	if d.stream != nil {
		d.stream.Close()
		if err != nil {
			err = fmt.Errorf("%s: %w", d.from, err)
		} else {
			warnDuplicates(stderr, d.from, d.stream.Duplicates())
		}
	}
	prog.finish()
	return model, choice, ran, err
}

// unsupervised returns cfg without its labels: the unsupervised fit of
// fit -labels' choice.
func unsupervised(cfg neuralnmf.Config) neuralnmf.Config {
	cfg.Supervision = nil
	return cfg
}

func loadModel(path string) (*neuralnmf.Model, error) {
	if path == "" {
		return nil, usageError{errors.New("-model is required")}
	}
	return neuralnmf.Load(path)
}
