/* The coded link's transmitter on the device: cuda/tb_encode_gpu.cuh says
 * what each stage does and whose algebra it shares. */
#include "cuda/tb_encode_gpu.cuh"

#include <stdio.h>
#include <string.h>

#include "core/rng_words.h"
#include "cuda/check.h"
#include "cuda/warp_crc.cuh"

namespace {

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;
constexpr int kEncodeThreads = 384; /* a thread a lane at Z = 384 */

/* Stage 1: one thread a Philox draw of a frame, its 128 information bits as
 * bytes (tb_info_bit: tb_draw_info's bits), four a 32-bit store. Bytes past
 * A up to the draw's end are written too: the TB CRC overwrites [A, B) and
 * nothing reads past B. */
__global__ void __launch_bounds__(kBlock)
    draw_info_kernel(uint64_t key, uint64_t first_frame, uint64_t frames, int draws, size_t stride,
                     uint8_t *__restrict__ tb) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= frames * (uint64_t)draws) return;
  const uint64_t f = i / (uint64_t)draws, q = i - f * (uint64_t)draws;
  const rng_words w = rng_words_at(key, RNG_TB_BITS, first_frame + f, q);
  uint32_t *out = reinterpret_cast<uint32_t *>(tb + (size_t)f * stride + (size_t)q * 128);
  for (int m = 0; m < 32; m++)
    out[m] = (uint32_t)tb_info_bit(w, 4 * m) | (uint32_t)tb_info_bit(w, 4 * m + 1) << 8 |
             (uint32_t)tb_info_bit(w, 4 * m + 2) << 16 | (uint32_t)tb_info_bit(w, 4 * m + 3) << 24;
}

/* Stage 2: a warp a frame, the TB CRC's L bits after its A (crc_attach). */
__global__ void __launch_bounds__(kBlock)
    tb_crc_kernel(ldpc_segmentation seg, uint64_t frames, size_t stride, uint8_t *__restrict__ tb) {
  const uint64_t f = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = (int)(threadIdx.x & 31);
  if (f >= frames) return; /* whole warps leave together */
  uint8_t *bits = tb + (size_t)f * stride;
  const int kind = ldpc_tb_crc_kind(&seg), length = crc_kind_length(kind);
  const uint32_t rem = warp_crc_register(kind, bits, seg.a, 0, lane) >> (32 - length);
  if (lane < length) bits[seg.a + lane] = crc_parity_bit(rem, length, lane);
}

/* Stage 3 (C > 1): a warp a code block, its CRC24B remainder over its
 * payload of the TB with its CRC. */
__global__ void __launch_bounds__(kBlock)
    cb_crc_kernel(ldpc_segmentation seg, uint64_t frames, size_t stride, const uint8_t *__restrict__ tb,
                  uint32_t *__restrict__ cb_crc) {
  const uint64_t b = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = (int)(threadIdx.x & 31);
  if (b >= frames * (uint64_t)seg.c) return;
  const uint64_t f = b / (uint64_t)seg.c;
  const int r = (int)(b - f * (uint64_t)seg.c), payload = seg.k_prime - seg.cb_crc;
  const uint8_t *bits = tb + (size_t)f * stride + (size_t)r * (size_t)payload;
  const uint32_t reg = warp_crc_register(CRC24B, bits, payload, 0, lane);
  if (lane == 0) cb_crc[b] = reg >> (32 - crc_kind_length(CRC24B));
}

/* x_{(i + v) mod Z} for i, v in [0, Z). */
__device__ __forceinline__ int rotated(int i, int v, int z) { return i + v < z ? i + v : i + v - z; }

/* Stage 4: a thread block a code block (blockIdx.x = f C + r). The codeword
 * in shared memory, then its rate-matched bits to the frame's coded bits;
 * with cw_out (tests) the whole codeword too. */
__global__ void __launch_bounds__(kEncodeThreads)
    encode_kernel(ldpc_segmentation seg, gpu_tb_code code, const ratematch_block *__restrict__ rms,
                  const long *__restrict__ offsets, long gbits, size_t stride, const uint8_t *__restrict__ tb,
                  const uint32_t *__restrict__ cb_crc, uint8_t *__restrict__ coded, uint8_t *__restrict__ cw_out) {
  extern __shared__ uint8_t smem[];
  const int z = code.z, kb = code.kb, ncw = code.cols * z;
  uint8_t *cw = smem, *s4 = smem + ncw; /* the codeword; s_0..s_3 (Z each) */
  const uint64_t b = blockIdx.x;
  const uint64_t f = b / (uint64_t)seg.c;
  const int r = (int)(b - f * (uint64_t)seg.c);
  const uint8_t *tbf = tb + (size_t)f * stride;
  const uint32_t crc = seg.cb_crc ? cb_crc[b] : 0;
  const int tid = threadIdx.x, nth = blockDim.x;

  /* the systematic columns: ldpc_segment_block's bits */
  for (int j = tid; j < kb * z; j += nth) cw[j] = ldpc_segment_block_bit(&seg, tbf, r, crc, j);
  __syncthreads();
  /* s_0..s_3: the systematic part of the core rows (entries ascend by
   * column, so the systematic ones come first) */
  for (int idx = tid; idx < 4 * z; idx += nth) {
    const int row = idx / z, i = idx - row * z;
    uint8_t acc = 0;
    for (int e = code.row_start[row]; e < code.row_start[row + 1] && code.col[e] < kb; e++)
      acc ^= cw[code.col[e] * z + rotated(i, code.shift[e], z)];
    s4[idx] = acc;
  }
  __syncthreads();
  /* p_0: P^odd p_0 = s_0 + s_1 + s_2 + s_3, so p_0[(i + odd) mod Z] = sum_i */
  for (int i = tid; i < z; i += nth)
    cw[kb * z + rotated(i, code.sch.odd, z)] = s4[i] ^ s4[z + i] ^ s4[2 * z + i] ^ s4[3 * z + i];
  __syncthreads();
  /* p_1..p_3 in the schedule's order, each from its row's known terms */
  for (int step = 0; step < 3; step++) {
    const int row = code.sch.peel_row[step], u = code.sch.peel_col[step];
    for (int i = tid; i < z; i += nth) {
      uint8_t acc = s4[row * z + i];
      for (int e = code.row_start[row]; e < code.row_start[row + 1]; e++) {
        const int j = code.col[e] - kb;
        if (j >= 0 && j < 4 && j != u) acc ^= cw[code.col[e] * z + rotated(i, code.shift[e], z)];
      }
      cw[(kb + u) * z + rotated(i, code.sch.peel_shift[step], z)] = acc;
    }
    __syncthreads();
  }
  /* the extension rows, all at once: each reads systematic and core columns
   * only (ldpc_encode_schedule_make checked), its own column at shift 0 */
  for (int idx = tid; idx < (code.rows - 4) * z; idx += nth) {
    const int row = 4 + idx / z, i = idx - (row - 4) * z;
    const int last = code.row_start[row + 1] - 1;
    uint8_t acc = 0;
    for (int e = code.row_start[row]; e < last; e++) acc ^= cw[code.col[e] * z + rotated(i, code.shift[e], z)];
    cw[(kb + row) * z + i] = acc;
  }
  __syncthreads();
  if (cw_out)
    for (int j = tid; j < ncw; j += nth) cw_out[(size_t)b * (size_t)ncw + (size_t)j] = cw[j];
  /* rate matching: f_o = d[position of e_k], k the interleaver's source */
  const ratematch_block rm = rms[r];
  uint8_t *out = coded + (size_t)f * (size_t)gbits + (size_t)offsets[r];
  const uint8_t *d = cw + 2 * z;
  for (int o = tid; o < rm.e; o += nth) out[o] = d[ratematch_selected_position(&rm, ratematch_interleaved_source(&rm, o))];
}

/* One thread a (frame, data RE): every stream's tb_label. */
__global__ void __launch_bounds__(kBlock)
    labels_kernel(const uint8_t *__restrict__ coded, long gbits, uint64_t frames, uint64_t ndata, int tx, int bps,
                  uint8_t *__restrict__ labels) {
  const uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= frames * ndata) return;
  const uint64_t f = i / ndata, d = i - f * ndata;
  for (int t = 0; t < tx; t++)
    labels[i * (uint64_t)tx + (uint64_t)t] = (uint8_t)tb_label(coded + (size_t)f * (size_t)gbits, d, tx, t, bps);
}

unsigned grid_of(uint64_t threads) { return (unsigned)((threads + kBlock - 1) / kBlock); }

int draws_of(const ldpc_segmentation *s) { return (s->a + 127) / 128; }

size_t tb_stride_of(const ldpc_segmentation *s) {
  const size_t draw_end = (size_t)draws_of(s) * 128, b = (size_t)s->b;
  return ((draw_end > b ? draw_end : b) + 127) & ~(size_t)127;
}

}  // namespace

size_t gpu_tb_encoder_bytes_per_frame(const tb_plan *plan) {
  return tb_stride_of(&plan->seg) + sizeof(uint32_t) * (size_t)plan->seg.c;
}

int gpu_tb_encoder_init(gpu_tb_encoder *e, const tb_plan *const *plans, int nplans, uint64_t frames,
                        cudaStream_t st, char *err, size_t errlen) {
  memset(e, 0, sizeof *e);
  if (nplans < 1 || nplans > LINK_HARQ_MAX || frames < 1) {
    snprintf(err, errlen, "cuda backend: the TB encoder takes 1 .. %d transmissions and some frames", LINK_HARQ_MAX);
    return -1;
  }
  const tb_plan *p0 = plans[0];
  e->seg = p0->seg;
  e->g = p0->g;
  e->plans = nplans;
  e->frames = frames;
  e->tb_stride = tb_stride_of(&e->seg);
  const ldpc_base_graph *bg = p0->code.g;
  gpu_tb_code *c = &e->code;
  c->rows = bg->rows;
  c->cols = bg->cols;
  c->kb = bg->info_cols;
  c->z = p0->code.z;
  c->nnz = bg->nnz;
  for (int r = 0; r <= bg->rows; r++) c->row_start[r] = bg->row_start[r];
  for (int k = 0; k < bg->nnz; k++) {
    c->col[k] = bg->col[k];
    c->shift[k] = p0->code.shift[k];
  }
  if (ldpc_encode_schedule_make(&p0->code, &c->sch)) {
    snprintf(err, errlen, "cuda backend: base graph %d, Z %d is not of the double-diagonal form the encoder solves",
             bg->id, c->z);
    return -1;
  }
  const int nc = e->seg.c;
  cudaError_t ce = cudaMalloc(&e->d_tb, (size_t)frames * e->tb_stride);
  if (ce == cudaSuccess) ce = cudaMalloc(&e->d_cb_crc, sizeof(uint32_t) * (size_t)frames * (size_t)nc);
  if (ce == cudaSuccess) ce = cudaMalloc(&e->d_offset, sizeof(long) * (size_t)nc);
  if (ce == cudaSuccess)
    ce = cudaMemcpyAsync(e->d_offset, p0->offset, sizeof(long) * (size_t)nc, cudaMemcpyHostToDevice, st);
  for (int t = 0; ce == cudaSuccess && t < nplans; t++) {
    if (plans[t]->seg.c != nc || plans[t]->g != e->g || plans[t]->code.z != c->z) {
      snprintf(err, errlen, "cuda backend: transmission %d's plan is not the first's TB", t);
      gpu_tb_encoder_free(e);
      return -1;
    }
    ce = cudaMalloc(&e->d_rm[t], sizeof(ratematch_block) * (size_t)nc);
    if (ce == cudaSuccess)
      ce = cudaMemcpyAsync(e->d_rm[t], plans[t]->rm, sizeof(ratematch_block) * (size_t)nc, cudaMemcpyHostToDevice,
                           st);
  }
  /* the host tables are the caller's: wait for the copies */
  if (ce == cudaSuccess) ce = cudaStreamSynchronize(st);
  if (ce != cudaSuccess) {
    snprintf(err, errlen, "cuda backend: the TB encoder's buffers for %llu frames: %s", (unsigned long long)frames,
             cudaGetErrorString(ce));
    cudaGetLastError();
    gpu_tb_encoder_free(e);
    return -1;
  }
  return 0;
}

void gpu_tb_encoder_free(gpu_tb_encoder *e) {
  if (e->d_tb) cudaFree(e->d_tb);
  if (e->d_cb_crc) cudaFree(e->d_cb_crc);
  if (e->d_offset) cudaFree(e->d_offset);
  for (int t = 0; t < LINK_HARQ_MAX; t++)
    if (e->d_rm[t]) cudaFree(e->d_rm[t]);
  cudaGetLastError(); /* teardown failures have no one left to report to */
  memset(e, 0, sizeof *e);
}

int gpu_tb_encode(gpu_tb_encoder *e, int t, uint64_t key, uint64_t first_frame, uint64_t frames, int draw,
                  uint8_t *coded, uint8_t *cw, cudaStream_t st) {
  if (t < 0 || t >= e->plans || frames < 1 || frames > e->frames) {
    char why[160];
    snprintf(why, sizeof why, "gpu_tb_encode: transmission %d of %d, %llu frames of %llu", t, e->plans,
             (unsigned long long)frames, (unsigned long long)e->frames);
    gpu_report_failure(__FILE__, __LINE__, why, "bad input", "out of range", 0);
    return -1;
  }
  const ldpc_segmentation &s = e->seg;
  if (draw) {
    const int draws = draws_of(&s);
    draw_info_kernel<<<grid_of(frames * (uint64_t)draws), kBlock, 0, st>>>(key, first_frame, frames, draws,
                                                                           e->tb_stride, e->d_tb);
    CUDA_TRY_LAUNCH("draw_info_kernel");
    tb_crc_kernel<<<(unsigned)((frames + kWarps - 1) / kWarps), kBlock, 0, st>>>(s, frames, e->tb_stride, e->d_tb);
    CUDA_TRY_LAUNCH("tb_crc_kernel");
    if (s.c > 1) {
      const uint64_t blocks = frames * (uint64_t)s.c;
      cb_crc_kernel<<<(unsigned)((blocks + kWarps - 1) / kWarps), kBlock, 0, st>>>(s, frames, e->tb_stride, e->d_tb,
                                                                                  e->d_cb_crc);
      CUDA_TRY_LAUNCH("cb_crc_kernel");
    }
  }
  const size_t shared = (size_t)(e->code.cols + 4) * (size_t)e->code.z;
  encode_kernel<<<(unsigned)(frames * (uint64_t)s.c), kEncodeThreads, shared, st>>>(
      s, e->code, e->d_rm[t], e->d_offset, e->g, e->tb_stride, e->d_tb, e->d_cb_crc, coded, cw);
  CUDA_TRY_LAUNCH("encode_kernel");
  return 0;
}

int gpu_tb_copy_info(const gpu_tb_encoder *e, uint64_t frames, uint8_t *info, cudaStream_t st) {
  CUDA_TRY(cudaMemcpy2DAsync(info, (size_t)e->seg.a, e->d_tb, e->tb_stride, (size_t)e->seg.a, (size_t)frames,
                             cudaMemcpyDeviceToHost, st));
  return 0;
}

int gpu_tb_copy_tb(const gpu_tb_encoder *e, uint64_t frames, uint8_t *tb, cudaStream_t st) {
  CUDA_TRY(cudaMemcpy2DAsync(tb, (size_t)e->seg.b, e->d_tb, e->tb_stride, (size_t)e->seg.b, (size_t)frames,
                             cudaMemcpyDeviceToHost, st));
  return 0;
}

int gpu_tb_labels(const uint8_t *coded, long g, uint64_t frames, uint64_t ndata, int tx, int bps, uint8_t *labels,
                  cudaStream_t st) {
  labels_kernel<<<grid_of(frames * ndata), kBlock, 0, st>>>(coded, g, frames, ndata, tx, bps, labels);
  CUDA_TRY_LAUNCH("labels_kernel");
  return 0;
}
