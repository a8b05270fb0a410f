/* kern_ggml_i8_vnni_avx2.c: --int8-act on ggml's types with AVX-VNNI
 * (vpdpbusd, vpdpwssd on 256 bits), kern_ggml_i8_int.h's bodies: the
 * AVX2 entries' bits, taken by kern_init for the AVX2 and AVX-512 tables
 * where the CPU has AVX-VNNI; W_Q8_0I's on the AVX2 table; and those of
 * the blocks packed by 16 (W_Q8X16, W_Q4X16), which only vpdpbusd takes. */
#if defined(__x86_64__)

#define GI8_VNNI 1
#include "kern/kern_ggml_i8_int.h"
#include "kern/kern_kx16_int.h"

void
kern_gq8_0i_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_GQ8_0I, out, w, x, n, r0, r1);
}

void
kern_gq8_0i_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_GQ8_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4_0i_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q4_0I, out, w, x, n, r0, r1);
}

void
kern_q4_0i_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q4_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q5_0i_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q5_0I, out, w, x, n, r0, r1);
}

void
kern_q5_0i_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q5_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4_ki_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q4_KI, out, w, x, n, r0, r1);
}

void
kern_q4_ki_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q4_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q6_ki_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q6_KI, out, w, x, n, r0, r1);
}

void
kern_q6_ki_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q6_KI, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q8_0i_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	gi8_matvec(W_Q8_0I, out, w, x, n, r0, r1);
}

void
kern_q8_0i_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	gi8_matmul(W_Q8_0I, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q8x16_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	yxmatvec(W_Q8X16, out, w, x, n, r0, r1);
}

void
kern_q4x16_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	yxmatvec(W_Q4X16, out, w, x, n, r0, r1);
}

void
kern_q8x16_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	yxmatmul(W_Q8X16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4x16_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	yxmatmul(W_Q4X16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q4kx16_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kxmatvec(W_Q4KX16, out, w, x, n, r0, r1);
}

void
kern_q4kx16_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kxmatmul(W_Q4KX16, out, ldo, w, x, ldx, n, T, r0, r1);
}

void
kern_q6kx16_vnni_matvec(float *out, const void *w, const float *x, int n,
    int r0, int r1)
{
	kxmatvec(W_Q6KX16, out, w, x, n, r0, r1);
}

void
kern_q6kx16_vnni_matmul(float *out, int ldo, const void *w, const float *x,
    int ldx, int n, int T, int r0, int r1)
{
	kxmatmul(W_Q6KX16, out, ldo, w, x, ldx, n, T, r0, r1);
}

#endif
