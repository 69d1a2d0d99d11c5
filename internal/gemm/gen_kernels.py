"""Writes kernel_amd64.s (6x8, AVX2 + FMA) and kernel_avx512_amd64.s (8x24,
AVX-512): the micro-kernels are fully unrolled over the rows of the tile, so
they are generated rather than typed. Run from this directory:

    python3 gen_kernels.py

and check that `git diff` shows only what you meant to change. Standard
library only.
"""


def header(name, mr, nr, regs, what):
    return ['#include "textflag.h"', '',
            f'// func {name}(k int, a, b, c *float64, ldc, ldb int, alpha float64, overwrite bool)',
            '//',
            f'// C[0:{mr}, 0:{nr}] += alpha * sum over p < k of a[{mr}p:{mr}p+{mr}] outer b[ldb*p:ldb*p+{nr}]',
            '// (C = alpha * sum, C not read, when overwrite), C row-major with ldc',
            f'// elements between rows. k >= 1. The {mr}x{nr} block of sums lives in {regs}',
            ] + what + [
            f'TEXT ·{name}(SB), NOSPLIT, $0-57',
            '\tMOVQ k+0(FP), CX', '\tMOVQ a+8(FP), SI', '\tMOVQ b+16(FP), DI', '\tMOVQ c+24(FP), DX',
            '\tMOVQ ldc+32(FP), R8', '\tSHLQ $3, R8', '\tMOVQ ldb+40(FP), R9', '\tSHLQ $3, R9', '']


def kstep(v, mr, per_row, acc, width, aoff):
    """One step p of a kernel: load a row of b (per_row registers v0..,
    width bytes each), then for each of the mr rows broadcast its value of a
    (at byte aoff + 8i, alternating between the two registers after b's) and
    FMA it into that row's accumulators v{acc + per_row*i + j}."""
    out = [f'\tVMOVUPD {width*j}(DI), {v}{j}' for j in range(per_row)]
    for i in range(mr):
        t = f'{v}{per_row + i % 2}'
        out.append(f'\tVBROADCASTSD {aoff+8*i}(SI), {t}')
        out += [f'\tVFMADD231PD {v}{j}, {t}, {v}{acc+per_row*i+j}' for j in range(per_row)]
    out.append('\tADDQ R9, DI')
    return out


def epilogue(v, mr, per_row, acc, width):
    """The kernels' common end: C += alpha * sums (alpha in register 0), then
    the overwrite branch C = alpha * sums; row i of the tile is in registers
    v{acc + per_row*i + j}, j < per_row, each width bytes of C, with registers
    v1.. as scratch and DX stepping by the row stride R8."""
    def rows(body):
        out = []
        for i in range(mr):
            out += body(i)
            if i < mr - 1:
                out.append('\tADDQ R8, DX')
        return out
    js = range(per_row)
    add = rows(lambda i: [f'\tVMOVUPD {width*j}(DX), {v}{1+j}' for j in js] +
               [f'\tVFMADD231PD {v}{acc+per_row*i+j}, {v}0, {v}{1+j}' for j in js] +
               [f'\tVMOVUPD {v}{1+j}, {width*j}(DX)' for j in js])
    store = rows(lambda i: [f'\tVMULPD {v}{acc+per_row*i+j}, {v}0, {v}{1+j}' for j in js] +
                 [f'\tVMOVUPD {v}{1+j}, {width*j}(DX)' for j in js])
    return add + ['\tVZEROUPPER', '\tRET', '', 'overwrite:'] + store + ['\tVZEROUPPER', '\tRET', '']


def gen6x8():
    lines = header('kernel6x8', 6, 8, 'Y4-Y15', [
        '// (two registers a row); per p it loads 8 values of b, broadcasts 6 of a',
        '// and issues 12 FMAs.'])
    for r in range(4, 16):
        lines.append(f'\tVXORPD Y{r}, Y{r}, Y{r}')

    def step(aoff):
        return kstep('Y', 6, 2, 4, 32, aoff)
    lines += ['', '\t// Two steps per iteration while at least two remain.', '\tCMPQ CX, $2', '\tJLT tail', 'loop2:']
    lines += step(0)
    lines += step(48)
    lines += ['\tADDQ $96, SI', '\tSUBQ $2, CX', '\tCMPQ CX, $2', '\tJGE loop2', 'tail:', '\tTESTQ CX, CX', '\tJZ store']
    lines += step(0)
    lines += ['', 'store:', '\tVBROADCASTSD alpha+48(FP), Y0', '\tMOVBLZX overwrite+56(FP), AX', '\tTESTL AX, AX', '\tJNZ overwrite']
    lines += epilogue('Y', 6, 2, 4, 32)
    return '\n'.join(lines)


def gen8xn(nr):
    """The AVX-512 kernel 8 x nr, nr a multiple of 8 up to 24: 8x24 is the
    main one; 8x8 and 8x16 serve a ragged last strip of at most 8 or 16
    columns (reading the strip's packed panel, whose stride is 24), where
    the 8x24 one would compute columns that are thrown away."""
    per_row = nr // 8
    names = {1: 'one register', 2: 'two registers', 3: 'three registers'}
    last = 8 + 8 * per_row - 1
    lines = header(f'kernel8x{nr}', 8, nr, f'Z8-Z{last}', [
        f'// ({names[per_row]} a row); per p it loads {nr} values of b, broadcasts 8 of',
        f'// a and issues {8 * per_row} FMAs.'])
    if nr != 24:  # one #include per file: the 8x24 kernel comes first
        lines = lines[2:]
    for r in range(8, last + 1):
        lines.append(f'\tVPXORQ Z{r}, Z{r}, Z{r}')

    def step(aoff):
        return kstep('Z', 8, per_row, 8, 64, aoff)
    loop = f'loop{nr}'
    lines += ['', f'{loop}:']
    lines += step(0)
    lines += ['\tADDQ $64, SI', '\tDECQ CX', f'\tJNZ {loop}', '', '\tVBROADCASTSD alpha+48(FP), Z0',
              '\tMOVBLZX overwrite+56(FP), AX', '\tTESTL AX, AX', f'\tJNZ overwrite{nr}']
    lines += [l.replace('overwrite:', f'overwrite{nr}:') for l in epilogue('Z', 8, per_row, 8, 64)]
    return '\n'.join(lines)


if __name__ == '__main__':
    with open('kernel_amd64.s', 'w') as f:
        f.write(gen6x8())
    with open('kernel_avx512_amd64.s', 'w') as f:
        f.write('\n'.join(gen8xn(nr) for nr in (24, 16, 8)))
