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


def gen6x8():
    lines = header('kernel6x8', 6, 8, 'Y4-Y15', [
        '// (two registers a row); per p it loads 8 values of b, broadcasts 6 of a',
        '// and issues 12 FMAs.'])
    for r in range(4, 16):
        lines.append(f'\tVXORPD Y{r}, Y{r}, Y{r}')

    def step(aoff):
        out = ['\tVMOVUPD 0(DI), Y0', '\tVMOVUPD 32(DI), Y1']
        for i in range(6):
            t = 'Y2' if i % 2 == 0 else 'Y3'
            out.append(f'\tVBROADCASTSD {aoff+8*i}(SI), {t}')
            out.append(f'\tVFMADD231PD Y0, {t}, Y{4+2*i}')
            out.append(f'\tVFMADD231PD Y1, {t}, Y{5+2*i}')
        out.append('\tADDQ R9, DI')
        return out
    lines += ['', '\t// Two steps per iteration while at least two remain.', '\tCMPQ CX, $2', '\tJLT tail', 'loop2:']
    lines += step(0)
    lines += step(48)
    lines += ['\tADDQ $96, SI', '\tSUBQ $2, CX', '\tCMPQ CX, $2', '\tJGE loop2', 'tail:', '\tTESTQ CX, CX', '\tJZ store']
    lines += step(0)
    lines += ['', 'store:', '\tVBROADCASTSD alpha+48(FP), Y0', '\tMOVBLZX overwrite+56(FP), AX', '\tTESTL AX, AX', '\tJNZ overwrite']
    for i in range(6):
        lines += ['\tVMOVUPD 0(DX), Y1', '\tVMOVUPD 32(DX), Y2',
                  f'\tVFMADD231PD Y{4+2*i}, Y0, Y1', f'\tVFMADD231PD Y{5+2*i}, Y0, Y2',
                  '\tVMOVUPD Y1, 0(DX)', '\tVMOVUPD Y2, 32(DX)']
        if i < 5:
            lines.append('\tADDQ R8, DX')
    lines += ['\tVZEROUPPER', '\tRET', '', 'overwrite:']
    for i in range(6):
        lines += [f'\tVMULPD Y{4+2*i}, Y0, Y1', f'\tVMULPD Y{5+2*i}, Y0, Y2',
                  '\tVMOVUPD Y1, 0(DX)', '\tVMOVUPD Y2, 32(DX)']
        if i < 5:
            lines.append('\tADDQ R8, DX')
    lines += ['\tVZEROUPPER', '\tRET', '']
    return '\n'.join(lines)


def gen8x24():
    lines = header('kernel8x24', 8, 24, 'Z8-Z31', [
        '// (three registers a row); per p it loads 24 values of b, broadcasts 8 of',
        '// a and issues 24 FMAs.'])
    for r in range(8, 32):
        lines.append(f'\tVPXORQ Z{r}, Z{r}, Z{r}')

    def step(aoff):
        out = ['\tVMOVUPD 0(DI), Z0', '\tVMOVUPD 64(DI), Z1', '\tVMOVUPD 128(DI), Z2']
        for i in range(8):
            t = 'Z3' if i % 2 == 0 else 'Z4'
            out.append(f'\tVBROADCASTSD {aoff+8*i}(SI), {t}')
            for j in range(3):
                out.append(f'\tVFMADD231PD Z{j}, {t}, Z{8+3*i+j}')
        out.append('\tADDQ R9, DI')
        return out
    lines += ['', 'loop:']
    lines += step(0)
    lines += ['\tADDQ $64, SI', '\tDECQ CX', '\tJNZ loop', '', '\tVBROADCASTSD alpha+48(FP), Z0',
              '\tMOVBLZX overwrite+56(FP), AX', '\tTESTL AX, AX', '\tJNZ overwrite']
    for i in range(8):
        for j in range(3):
            lines.append(f'\tVMOVUPD {64*j}(DX), Z{1+j}')
        for j in range(3):
            lines.append(f'\tVFMADD231PD Z{8+3*i+j}, Z0, Z{1+j}')
        for j in range(3):
            lines.append(f'\tVMOVUPD Z{1+j}, {64*j}(DX)')
        if i < 7:
            lines.append('\tADDQ R8, DX')
    lines += ['\tVZEROUPPER', '\tRET', '', 'overwrite:']
    for i in range(8):
        for j in range(3):
            lines.append(f'\tVMULPD Z{8+3*i+j}, Z0, Z{1+j}')
        for j in range(3):
            lines.append(f'\tVMOVUPD Z{1+j}, {64*j}(DX)')
        if i < 7:
            lines.append('\tADDQ R8, DX')
    lines += ['\tVZEROUPPER', '\tRET', '']
    return '\n'.join(lines)


if __name__ == '__main__':
    with open('kernel_amd64.s', 'w') as f:
        f.write(gen6x8())
    with open('kernel_avx512_amd64.s', 'w') as f:
        f.write(gen8x24())
