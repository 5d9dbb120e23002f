/* The batch decoder's driver (coding/ldpc_batch.h): the lanes' inputs in and
 * decisions out, the iterations, early termination lane by lane, and the
 * choice of kernel (coding/ldpc_batch_kernel.h).
 *
 * A lane stops as ldpc_decoder_execute would stop its block alone: its
 * decisions and counts are taken after the iteration that met its syndrome
 * (or after max_iterations); the vector goes on for the other lanes, and the
 * finished lane's values, computed on, are never read again. A lane's rows
 * are those ldpc_decoder_execute would decode for its block (up to the last
 * extension parity column with a nonzero LLR): the batch runs the most rows
 * any lane needs, and a row past a lane's last one keeps that lane's LLRs
 * (the kernel's `keep`) and is left out of that lane's syndrome. Lanes past
 * n decode a copy of block 0, whose results nobody reads. */
#include "coding/ldpc_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coding/ldpc_batch_kernel.h"
#include "coding/ldpc_graph.h"
#include "coding/ldpc_msg.h"

#define B LDPC_BATCH

struct ldpc_batch_decoder {
  ldpc_code code;
  ldpc_decoder_config cfg;
  ldpc_batch_kernel kernel;
  ldpc_batch_layer_fn layer;
  ldpc_batch_syndrome_fn syndrome;
  float *app;               /* Nb Z B */
  float *msg;               /* nnz Z B */
  ldpc_decoder *single;     /* flooding BP and nms16: the blocks one by one */
};

int ldpc_batch_have_avx2(void) {
#if defined(LDPC_BATCH_HAVE_AVX2_KERNEL)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
#else
  return 0;
#endif
}

ldpc_batch_decoder *ldpc_batch_create(int bg, int z, const ldpc_decoder_config *cfg, ldpc_batch_kernel kernel,
                                      char *err, size_t err_len) {
  ldpc_code code;
  if (ldpc_code_init(&code, bg, z) != 0) {
    snprintf(err, err_len, "ldpc batch decoder: no code for base graph %d and lifting size %d", bg, z);
    return NULL;
  }
  if ((unsigned)kernel > LDPC_KERNEL_AVX2) {
    snprintf(err, err_len, "ldpc batch decoder: no kernel %d", (int)kernel);
    return NULL;
  }
  if (kernel == LDPC_KERNEL_AVX2 && !ldpc_batch_have_avx2()) {
    snprintf(err, err_len, "ldpc batch decoder: the AVX2 kernel was asked for, but this CPU (or build) has no AVX2");
    return NULL;
  }
  ldpc_decoder *single = ldpc_decoder_create(bg, z, cfg, err, err_len); /* checks cfg too */
  if (!single) return NULL;
  ldpc_batch_decoder *d = calloc(1, sizeof *d);
  if (!d) {
    ldpc_decoder_destroy(single);
    snprintf(err, err_len, "ldpc batch decoder: out of memory");
    return NULL;
  }
  d->code = code;
  d->cfg = *cfg;
  d->single = single;
  if (kernel == LDPC_KERNEL_AUTO) kernel = ldpc_batch_have_avx2() ? LDPC_KERNEL_AVX2 : LDPC_KERNEL_GEN;
  d->kernel = kernel;
  d->layer = ldpc_batch_layer_gen;
  d->syndrome = ldpc_batch_syndrome_gen;
#if defined(LDPC_BATCH_HAVE_AVX2_KERNEL)
  if (kernel == LDPC_KERNEL_AVX2) {
    d->layer = ldpc_batch_layer_avx2;
    d->syndrome = ldpc_batch_syndrome_avx2;
  }
#endif
  if (cfg->algorithm != LDPC_FLOODING_BP && cfg->algorithm != LDPC_LAYERED_NMS16) {
    const size_t bits = (size_t)code.g->cols * z * B, msgs = (size_t)code.g->nnz * z * B;
    /* C11's aligned_alloc takes a size that is a multiple of the alignment */
    d->app = aligned_alloc(64, (sizeof(float) * bits + 63) & ~(size_t)63);
    d->msg = aligned_alloc(64, (sizeof(float) * msgs + 63) & ~(size_t)63);
    if (!d->app || !d->msg) {
      ldpc_batch_destroy(d);
      snprintf(err, err_len, "ldpc batch decoder: out of memory");
      return NULL;
    }
  }
  return d;
}

ldpc_batch_kernel ldpc_batch_kernel_used(const ldpc_batch_decoder *d) { return d->kernel; }

void ldpc_batch_destroy(ldpc_batch_decoder *d) {
  if (!d) return;
  ldpc_decoder_destroy(d->single);
  free(d->app);
  free(d->msg);
  free(d);
}

/* ldpc_decoder_execute's rows: up to the last column past the core with a
 * nonzero LLR (4 when there is none). */
static int rows_to_decode(const ldpc_code *code, const float *llr) {
  const ldpc_base_graph *g = code->g;
  const int z = code->z;
  for (int c = g->cols - 1; c >= g->info_cols + 4; c--)
    for (int i = 0; i < z; i++)
      if (llr[(size_t)c * z + i] != 0.0f) return c - g->info_cols + 1;
  return 4;
}

/* Lane b's decisions on the first k_prime bits. */
static void take_bits(const float *app, int b, int k_prime, uint8_t *bits) {
  for (int k = 0; k < k_prime; k++) bits[k] = ldpc_hard_bit(app[(size_t)k * B + b]);
}

int ldpc_batch_execute(ldpc_batch_decoder *d, int n, const float *const *llr, int k_prime, uint8_t *const *bits,
                       ldpc_decode_result *res) {
  const ldpc_code *code = &d->code;
  const int z = code->z;
  if (n < 1 || n > B || k_prime < 1 || k_prime > ldpc_k(code)) return -1;
  /* one block gains nothing from the lanes: the one-block decoder, faster */
  if (d->cfg.algorithm == LDPC_FLOODING_BP || d->cfg.algorithm == LDPC_LAYERED_NMS16 || n == 1) {
    for (int b = 0; b < n; b++) ldpc_decoder_execute(d->single, llr[b], k_prime, bits[b], &res[b]);
    return 0;
  }
  const size_t nbits = (size_t)code->g->cols * z;
  const float *in[B];
  int rows_used[B], rows = 0;
  for (int b = 0; b < B; b++) {
    in[b] = llr[b < n ? b : 0];
    rows_used[b] = b < n ? rows_to_decode(code, in[b]) : rows_used[0];
    rows = rows_used[b] > rows ? rows_used[b] : rows;
  }
  /* row_lanes[r]: the lanes that decode row r */
  uint8_t row_lanes[LDPC_ROWS_MAX];
  for (int r = 0; r < rows; r++) {
    row_lanes[r] = 0;
    for (int b = 0; b < B; b++) row_lanes[r] |= (uint8_t)((r < rows_used[b]) << b);
  }
  float *restrict app = d->app;
  for (size_t j = 0; j < nbits; j++)
    for (int b = 0; b < B; b++) app[j * B + b] = in[b][j];
  memset(d->msg, 0, sizeof(float) * (size_t)code->g->row_start[rows] * z * B);

  const ldpc_batch_state st = {code, d->app, d->msg, d->cfg.alpha, d->cfg.beta,
                               d->cfg.algorithm == LDPC_LAYERED_OMS};
  const uint32_t lanes = (1u << n) - 1u;
  uint32_t running = lanes; /* lanes still decoding */
  const int early = !d->cfg.full_iterations;
  int it = 0;
  while (running && it < d->cfg.max_iterations) {
    for (int r = 0; r < rows; r++) d->layer(&st, r, (uint32_t)(~row_lanes[r] & 0xffu));
    it++;
    if (!early && it < d->cfg.max_iterations) continue;
    /* the lanes of `running` whose syndrome is zero stop here */
    const uint32_t ok = running & ~d->syndrome(&st, rows, row_lanes, running);
    const uint32_t stop = it == d->cfg.max_iterations ? running : ok;
    for (int b = 0; b < n; b++)
      if ((stop >> b) & 1u) {
        take_bits(app, b, k_prime, bits[b]);
        res[b].iterations = it;
        res[b].syndrome_ok = (int)((ok >> b) & 1u);
        res[b].rows_used = rows_used[b];
      }
    running &= ~stop;
  }
  return 0;
}
