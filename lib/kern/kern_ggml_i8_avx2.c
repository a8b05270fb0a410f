/* kern_ggml_i8_avx2.c: --int8-act on ggml's types and W_Q8_0I (a block
 * of 32 in conv.h's rows), the AVX2 table's entries (kern.h):
 * kern_ggml_i8_int.h's bodies with vpmaddubsw and vpmaddwd. */
#if defined(__x86_64__)

#define GI8_VNNI 0
#include "kern/kern_ggml_i8_int.h"
#include "kern/kern_kx16_int.h"

void
kern_i8_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q8_0I, out, w, x, n, r0, r1);
}

void
kern_i8_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q8_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_gq8_0i_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_GQ8_0I, out, w, x, n, r0, r1);
}

void
kern_gq8_0i_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_GQ8_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4_0i_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q4_0I, out, w, x, n, r0, r1);
}

void
kern_q4_0i_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q4_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q5_0i_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q5_0I, out, w, x, n, r0, r1);
}

void
kern_q5_0i_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q5_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4_ki_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q4_KI, out, w, x, n, r0, r1);
}

void
kern_q4_ki_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q4_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q6_ki_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q6_KI, out, w, x, n, r0, r1);
}

void
kern_q6_ki_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q6_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4x16_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	yxmatvec(W_Q4X16, out, w, x, n, r0, r1);
}

void
kern_q4x16_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	yxmatmul(W_Q4X16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4kx16_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kxmatvec(W_Q4KX16, out, w, x, n, r0, r1);
}

void
kern_q4kx16_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kxmatmul(W_Q4KX16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q6kx16_avx2_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kxmatvec(W_Q6KX16, out, w, x, n, r0, r1);
}

void
kern_q6kx16_avx2_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kxmatmul(W_Q6KX16, out, ldo, w, x, ldx, n, T, r0, r1);
}

#endif
