/* The BICM (bit-interleaved coded modulation) capacity of Gray BPSK and
 * square QAM on the complex AWGN channel: the reference the GMI estimates of
 * soft demapping (equalizer/soft.h) are held against on an AWGN point. */
#ifndef OFDMSIM_BICM_REF_H
#define OFDMSIM_BICM_REF_H

#ifdef __cplusplus
extern "C" {
#endif

/* sum over the label bits of I(b_k; y), bits per channel use, for core/qam.h's
 * constellation (unit symbol energy, bps in {1, 2, 4, 6, 8}) at Es/N0 =
 * esn0_db, N0 the complex noise variance (N0/2 a real dimension).  Square QAM
 * with Gray labels is two Gray PAMs, one a dimension, each seeing N0/2: twice
 * the PAM's bit-wise capacity; BPSK uses the real dimension only (the real
 * channel with noise variance N0/2).  Numerical integration (adaptive
 * Gauss-Kronrod 7/15, started on the decision thresholds), accurate to 1e-9
 * or better.  NAN for an invalid bps. */
double bicm_capacity(int bps, double esn0_db);

#ifdef __cplusplus
}
#endif
#endif
