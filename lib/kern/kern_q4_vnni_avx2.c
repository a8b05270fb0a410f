/* kern_q4_vnni_avx2.c: --int8-act's W_Q4 batches and prefill with
 * AVX-VNNI (kern_q4_avx2_int.h's steps, vpdpbusd), taken by kern_init
 * for the AVX2 table where the CPU has it: kern_q4_avx2.c's bits. */
#if defined(__x86_64__)

#define Q4_VNNI 1
#include "kern/kern_q4_avx2_int.h"

void
kern_q4i_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	many(1, out, ldo, w, x, ldx, n, T, r0, r1, kern_q4_avx2_prep8,
	    kern_q4i_avx2_matvec);
}

void
kern_q4i_vnni_matmulx(float *out, int ldo, const void *w, const void *xp,
    const float *x, int ldx, int n, int T, int r0, int r1)
{
	manyx(out, ldo, w, xp, x, ldx, n, T, r0, r1, kern_q4i_avx2_matvec);
}

#endif
