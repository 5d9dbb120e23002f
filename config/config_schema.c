/* The config schema table and the checks of single values against it. */
#include "config/config_schema.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/draws.h"
#include "core/params.h"
#include "config/config.h"
#include "config/config_format.h"
#include "config/config_suggest.h"

/* What simulation.backend accepts (sim/backends.c resolves it); the config
 * keeps the name itself, so the values only number the choices. */
static const char *const backend_n[] = {"auto", "cpu", "cuda"};
static const int backend_v[] = {0, 1, 2};
static const name_table backend_names = {3, backend_n, backend_v};

static const char *const channel_choice_n[] = {"awgn", "rayleigh", "tdl", "cdl-a", "cdl-b", "cdl-c", "cdl-d", "cdl-e"};
static const int channel_choice_v[] = {CH_AWGN, CH_RAYLEIGH, CH_TDL, CHANNEL_CHOICE_CDL, CHANNEL_CHOICE_CDL + 1,
                                       CHANNEL_CHOICE_CDL + 2, CHANNEL_CHOICE_CDL + 3, CHANNEL_CHOICE_CDL + 4};
const name_table channel_choice_names = {8, channel_choice_n, channel_choice_v};

#define CDL_ONLY "cdl-a|cdl-b|cdl-c|cdl-d|cdl-e"
#define TAPS_ONLY "tdl|" CDL_ONLY
/* The keys of one end's array (tx_array.*, rx_array.*). */
#define ARRAY_KEYS(end, END, what, mimo)                                                                                   \
  [KEY_##END##_ROWS] = {.path = end "_array.rows", .type = KT_INT, .default_text = "1", .imin = 1, .imax = 16,     \
                        .follows = KEY_MODEL, .only_with = CDL_ONLY,                                                \
                        .help = "cdl: rows of the " what " panel (vertical, spacing_v apart)"},                       \
  [KEY_##END##_COLUMNS] = {.path = end "_array.columns", .type = KT_INT,                                          \
                           .default_note = mimo " / rows (/ 2 dual-polarised)", .imin = 1, .imax = 16,      \
                           .follows = KEY_MODEL, .only_with = CDL_ONLY,                                             \
                           .help = "cdl: columns of the " what " panel (horizontal, spacing_h apart); rows x "     \
                                   "columns (x 2 dual-polarised) must equal " mimo},                          \
  [KEY_##END##_SPACING_V] = {.path = end "_array.spacing_v", .type = KT_NUMBER, .default_text = "0.5", .lo = 0,    \
                             .lo_open = 1, .hi = 1e3, .follows = KEY_MODEL, .only_with = CDL_ONLY,                  \
                             .help = "cdl: distance between rows, wavelengths"},                                   \
  [KEY_##END##_SPACING_H] = {.path = end "_array.spacing_h", .type = KT_NUMBER, .default_text = "0.5", .lo = 0,    \
                             .lo_open = 1, .hi = 1e3, .follows = KEY_MODEL, .only_with = CDL_ONLY,                  \
                             .help = "cdl: distance between columns, wavelengths"},                                \
  [KEY_##END##_POL] = {.path = end "_array.polarisation", .type = KT_CHOICE, .default_text = "\"v\"",            \
                       .choices = &panel_pol_names, .follows = KEY_MODEL, .only_with = CDL_ONLY,                    \
                       .help = "cdl: v (one vertically polarised element a position), x (two, slanted +45 and "     \
                               "-45 degrees) or vh (two, 0 and 90 degrees)"},                                     \
  [KEY_##END##_PATTERN] = {.path = end "_array.pattern", .type = KT_CHOICE, .default_text = "\"isotropic\"",     \
                           .choices = &panel_pattern_names, .follows = KEY_MODEL, .only_with = CDL_ONLY,            \
                           .help = "cdl: the element's power pattern: isotropic (0 dBi), or TR 38.901 Table 7.3-1 " \
                                   "(65 degree beamwidths, 30 dB front-to-back, 8 dBi; its gain is not "            \
                                   "normalised away)"},                                                            \
  [KEY_##END##_BEARING] = {.path = end "_array.bearing_deg", .type = KT_NUMBER, .default_text = "0.0",             \
                           .lo = -360, .hi = 360, .follows = KEY_MODEL, .only_with = CDL_ONLY,                      \
                           .help = "cdl: the panel turned about the vertical, degrees (0: facing +x)"},             \
  [KEY_##END##_DOWNTILT] = {.path = end "_array.downtilt_deg", .type = KT_NUMBER, .default_text = "0.0",           \
                            .lo = -90, .hi = 90, .follows = KEY_MODEL, .only_with = CDL_ONLY,                       \
                            .help = "cdl: the panel tilted down, degrees"}

#define INT_KEY(p, def, lo, hi, run, h) \
  {.path = p, .type = KT_INT, .default_text = def, .imin = lo, .imax = hi, .per_run = run, .follows = -1, .help = h}
#define NUM_KEY(p, def, l, lopen, h_, hopen, h) \
  {.path = p, .type = KT_NUMBER, .default_text = def, .lo = l, .lo_open = lopen, .hi = h_, .hi_open = hopen, .follows = -1, .help = h}
#define CHOICE_KEY(p, def, names, run, h) \
  {.path = p, .type = KT_CHOICE, .default_text = def, .choices = &names, .per_run = run, .follows = -1, .help = h}

const config_key config_keys[KEY_COUNT] = {
  [KEY_BACKEND] = CHOICE_KEY("simulation.backend", "\"auto\"", backend_names, 1,
                             "where the points run; auto picks cuda when a GPU is usable"),
  [KEY_SEED] = INT_KEY("simulation.seed", "1", 0, INT64_MAX, 0,
                       "key of the random streams: same seed, same bits, channels and noise on every backend"),
  [KEY_SNR_DB] = {.path = "simulation.snr_db", .type = KT_NUMBERS, .default_text = "[0.0, 5.0, 10.0]",
                  .lo = -50, .hi = 100, .follows = -1,
                  .help = "SNR points in dB, the innermost sweep (a bare number is one point; a range "
                          "{ from = 0.0; to = 30.0; step = 2.0; } is 0, 2, ..., 30)"},
  [KEY_SNR_KIND] = CHOICE_KEY("simulation.snr_kind", "\"ebno\"", snr_kind_names, 0,
                              "what snr_db means: Eb/N0, Es/N0 per stream, or total received SNR per antenna"),
  [KEY_TARGET_ERRORS] = INT_KEY("simulation.target_errors", "1000", 1, INT64_MAX, 0,
                                "stop a point after this many bit errors"),
  [KEY_MAX_BITS] = NUM_KEY("simulation.max_bits", "1.0e8", 1, 0, 1e15, 0,
                           "... or after this many simulated bits"),
  [KEY_MIN_FRAMES] = INT_KEY("simulation.min_frames", "0", 0, INT64_MAX, 0,
                             "... but target_errors stops no point before this many frames (0 = 100 for tdl "
                             "and block-faded rayleigh, where a frame is one or a few channel realisations, "
                             "10 otherwise): the interval is "
                             "estimated from the spread of the frames' counts"),
  [KEY_TARGET_PRECISION] = NUM_KEY("simulation.target_precision", "0.0", 0, 0, 1, 1,
                                   "... or once the half-width of the point's 95% interval is at most "
                                   "this fraction of its BER, after min_frames frames (0 = off)"),
  [KEY_STOP_BELOW_BER] = NUM_KEY("simulation.stop_below_ber", "0.0", 0, 0, 1, 1,
                                 "end a curve early: once a point's BER falls below this (or it ends "
                                 "at max_bits with no error), the points of the same sweep combination "
                                 "at that SNR or higher are skipped (0 = off); coded points: their BLER"),
  [KEY_FIRST_FRAME] = INT_KEY("simulation.first_frame", "0", 0, (int64_t)RNG_MAX_FRAMES - 1, 0,
                              "index of the point's first frame: runs of one point over disjoint frame "
                              "ranges (same seed) are independent parts that `ofdmsim merge` adds up; "
                              "with drops a multiple of channel.drop_frames"),
  [KEY_THREADS] = INT_KEY("simulation.threads", "0", 0, 1024, 1, "CPU threads (0 = all cores)"),
  [KEY_BATCH_FRAMES] = INT_KEY("simulation.batch_frames", "0", 0, INT64_MAX, 1,
                               "frames per batch (0 = the backend chooses)"),
  [KEY_GPU_MEMORY_MB] = INT_KEY("simulation.gpu_memory_mb", "0", 0, INT64_MAX, 1,
                                "cap on the GPU memory used, MiB (0 = the free device memory)"),
  [KEY_TX] = INT_KEY("mimo.tx", "2", 1, LINK_MAX_TX, 0, "transmit streams Nt"),
  [KEY_RX] = INT_KEY("mimo.rx", "2", 1, LINK_MAX_RX, 0, "receive antennas Nr"),
  [KEY_MODULATION] = CHOICE_KEY("modulation", "\"qpsk\"", modulation_names, 0,
                                "Gray-mapped QAM with unit mean energy (1, 2, 4, 6, 8 bits per symbol)"),
  [KEY_EQUALIZER] = CHOICE_KEY("equalizer", "\"mmse\"", equalizer_names, 0,
                               "the detector: zero forcing; MMSE with bias correction; ordered MMSE-SIC "
                               "(hard cancellation); K-best tree search on the sorted QR; exhaustive "
                               "maximum likelihood (M^tx <= 65536); zf, kbest and ml need rx >= tx"),
  [KEY_MODEL] = CHOICE_KEY("channel.model", "\"rayleigh\"", channel_choice_names, 0,
                           "awgn: H = I (needs rx = tx); rayleigh: i.i.d. CN(0,1) per RE; tdl: multipath taps per "
                           "frame; cdl-a..cdl-e: TR 38.901 7.7.1 clusters of 20 rays between the arrays "
                           "tx_array and rx_array (random ray coupling, XPR, initial phases per frame; Doppler "
                           "from each ray's arrival angle)"),
  [KEY_PROFILE] = {.path = "channel.profile", .type = KT_CHOICE, .default_text = "\"exp\"",
                   .choices = &tdl_profile_names,
                   .follows = KEY_MODEL, .only_with = "tdl",
                   .help = "power-delay profile: exponential (on the sample grid), 3GPP TR 38.901 "
                           "TDL-A..E (D and E with their line-of-sight path), or custom (the taps of "
                           "tap_delays_ns and tap_powers_db)"},
  [KEY_DELAY_SPREAD] = {.path = "channel.delay_spread", .type = KT_NUMBER, .default_text = "4.0",
                        .lo = 0, .lo_open = 1, .hi = INFINITY, .follows = KEY_MODEL,
                        .only_with = TAPS_ONLY,
                        .help = "RMS delay spread in samples (or delay_spread_ns); the longest tap must stay "
                                "below subcarriers"},
  [KEY_RHO_TX] = NUM_KEY("channel.rho_tx", "0.0", 0, 0, 1, 1,
                         "exponential correlation of adjacent transmit antennas (not with awgn)"),
  [KEY_RHO_RX] = NUM_KEY("channel.rho_rx", "0.0", 0, 0, 1, 1,
                         "exponential correlation of adjacent receive antennas (not with awgn)"),
  [KEY_K_FACTOR] = {.path = "channel.k_factor", .type = KT_NUMBER, .default_text = "0.0", .lo = 0,
                    .hi = INFINITY, .follows = -1,
                    .help = "Rician K factor, linear, 0 is none (not with awgn): rayleigh, of every element; "
                            "tdl, of the whole channel (LOS power over all NLOS power, the LOS on tap 0); "
                            "cdl-d/e: the LOS cluster's power over the rest (default: the table's)"},
  [KEY_CSI_ERROR_VAR] = NUM_KEY("channel.csi_error_var", "0.0", 0, 0, INFINITY, 0,
                                "variance of the channel estimation error E: the equalizer sees H + E"),
  [KEY_SUBCARRIERS] = INT_KEY("ofdm.subcarriers", "1024", 1, 65536, 0,
                              "subcarriers per OFDM symbol (the FFT size)"),
  [KEY_SYMBOLS] = INT_KEY("ofdm.symbols", "14", 1, 1000, 0, "OFDM symbols per frame"),
  [KEY_DOMAIN] = CHOICE_KEY("ofdm.domain", "\"frequency\"", ofdm_domain_names, 0,
                            "frequency: y = Hx + n per subcarrier; time: IFFT, cyclic prefix, taps, FFT "
                            "(awgn or tdl)"),
  [KEY_CP_LENGTH] = {.path = "ofdm.cp_length", .type = KT_INT, .default_note = "subcarriers/8",
                     .imin = 0, .imax = 65535, .follows = KEY_SUBCARRIERS,
                     .help = "cyclic prefix in samples, below subcarriers"},
  [KEY_LLR] = CHOICE_KEY("receiver.llr", "\"off\"", llr_kind_names, 0,
                         "soft outputs: off (hard decisions), max-log or exact bit LLRs; with LLRs each "
                         "point also reports its BICM GMI (achievable rate); kbest and ml give max-log"),
  [KEY_KBEST_K] = {.path = "receiver.kbest_k", .type = KT_INT, .default_text = "16", .imin = 1,
                   .imax = LINK_MAX_KBEST, .follows = KEY_EQUALIZER, .only_with = "kbest",
                   .help = "survivors K the K-best search keeps per layer (K = M^tx is exhaustive ML)"},
  [KEY_LLR_CLIP] = {.path = "receiver.llr_clip", .type = KT_NUMBER, .default_text = "20.0", .lo = 0,
                    .lo_open = 1, .hi = 64, .follows = KEY_EQUALIZER, .only_with = "kbest",
                    .help = "|LLR| K-best gives a bit whose other value no survivor holds"},
  [KEY_GMI] = {.path = "receiver.gmi", .type = KT_CHOICE, .default_text = "\"sup\"", .choices = &gmi_kind_names,
               .follows = KEY_LLR, .only_with = "maxlog|exact",
               .help = "the GMI sums of a point with LLRs: sup (the loss at 23 LLR scalings s, the GMI "
                       "maximised over s), s1 (at s = 1 only: one logarithm a bit, the GMI of the LLRs as "
                       "they are, no gmi_s), none (no GMI: LLRs, BER and the coded link only)"},
  [KEY_SUBCARRIER_SPACING] = NUM_KEY("ofdm.subcarrier_spacing", "30000.0", 0, 1, 1e9, 0,
                                     "subcarrier spacing in Hz: the sample rate is subcarriers x spacing "
                                     "(turns delay_spread_ns and Doppler into samples)"),
  [KEY_DELAY_SPREAD_NS] = {.path = "channel.delay_spread_ns", .type = KT_NUMBER, .default_note = "none",
                           .lo = 0, .lo_open = 1, .hi = 1e9, .follows = KEY_MODEL, .only_with = TAPS_ONLY,
                           .help = "RMS delay spread in ns, instead of delay_spread (never both)"},
  [KEY_DELAYS] = {.path = "channel.delays", .type = KT_CHOICE, .default_text = "\"continuous\"",
                  .choices = &delay_grid_names, .follows = KEY_MODEL, .only_with = "tdl",
                  .help = "tap delays where the profile puts them (exact phase per subcarrier; windowed-sinc "
                          "interpolation in the time domain), or rounded to whole samples"},
  [KEY_DOPPLER_HZ] = {.path = "channel.doppler_hz", .type = KT_NUMBER, .default_text = "0.0", .lo = 0,
                      .hi = 1e7, .follows = KEY_MODEL, .only_with = TAPS_ONLY "|rayleigh",
                      .help = "maximum Doppler shift in Hz: every tap (tdl) or link (rayleigh with fading = block "
                              "or flat_block) fades with the Jakes spectrum, within the frame or the drop "
                              "(0: fixed per frame)"},
  [KEY_SPEED_KMH] = {.path = "channel.speed_kmh", .type = KT_NUMBER, .default_note = "none", .lo = 0,
                     .hi = 1e5, .follows = KEY_MODEL, .only_with = TAPS_ONLY "|rayleigh",
                     .help = "terminal speed in km/h, instead of doppler_hz: f_d = speed / c x carrier_ghz"},
  [KEY_CARRIER_GHZ] = {.path = "channel.carrier_ghz", .type = KT_NUMBER, .default_text = "3.5", .lo = 0,
                       .lo_open = 1, .hi = 1000, .follows = KEY_MODEL, .only_with = TAPS_ONLY "|rayleigh",
                       .help = "carrier frequency in GHz, with speed_kmh"},
  [KEY_PILOT_SPACING] = INT_KEY("pilots.spacing", "0", 0, 65536, 0,
                                "comb spacing P in subcarriers (0: no pilots): on a pilot symbol, antenna t "
                                "sends the pilot 1 on subcarriers t, t+P, ... (P >= tx); the other REs carry "
                                "data, and pilot REs are not counted as bits"),
  [KEY_PILOT_FIRST] = {.path = "pilots.first_symbol", .type = KT_INT, .default_text = "0", .imin = 0,
                       .imax = 65535, .follows = -1,
                       .help = "the first OFDM symbol with pilots (with spacing > 0)"},
  [KEY_PILOT_EVERY] = {.path = "pilots.symbol_spacing", .type = KT_INT, .default_text = "0", .imin = 0,
                       .imax = 65536, .follows = -1,
                       .help = "symbols from one pilot symbol to the next (0: first_symbol alone; with "
                               "spacing > 0)"},
  [KEY_ESTIMATION] = CHOICE_KEY("receiver.channel_estimation", "\"perfect\"", est_kind_names, 0,
                                "the receiver's channel: the true one, or least squares at the pilots "
                                "interpolated to every RE (needs pilots, and tdl, awgn or block-faded "
                                "rayleigh); its error variance enters every detector"),
  [KEY_INTERPOLATION] = {.path = "receiver.interpolation", .type = KT_CHOICE, .default_text = "\"linear\"",
                         .choices = &interp_kind_names, .follows = KEY_ESTIMATION, .only_with = "ls",
                         .help = "across subcarriers: the nearest pilot, linear between pilots, or LMMSE "
                                 "over the 16 nearest with the profile's correlation, then across symbols as "
                                 "time_interpolation says; or lmmse2d, the 2-D Wiener filter over the 16 "
                                 "nearest on each of up to 4 pilot symbols around the RE, with the profile's "
                                 "correlation in frequency and the Doppler's (Jakes) in time"},
  [KEY_FADING] = {.path = "channel.fading", .type = KT_CHOICE, .default_text = "\"independent\"",
                  .choices = &fading_kind_names, .follows = KEY_MODEL, .only_with = "rayleigh",
                  .help = "rayleigh's draws: independent on every RE, one per subcarrier held over the "
                          "frame (block), or one for the whole frame (flat_block); frames independent "
                          "(or drops: drop_frames); with doppler_hz each subcarrier (block) or the whole "
                          "band (flat_block) fades in time instead"},
  [KEY_DROP_FRAMES] = {.path = "channel.drop_frames", .type = KT_INT, .default_text = "1", .imin = 1,
                       .imax = 1 << 20, .follows = KEY_MODEL, .only_with = TAPS_ONLY "|rayleigh",
                       .help = "frames per drop: consecutive frames share one channel realisation, the block "
                               "draw or the taps held, or the Doppler fading (rayleigh's sinusoids, tdl's, "
                               "cdl's rays) running on across them, time from the drop's first frame; "
                               "drops independent (rayleigh needs fading = block or flat_block); every "
                               "interval takes the drop as its unit"},
  [KEY_PILOT_TYPE] = CHOICE_KEY("pilots.type", "\"comb\"", pilot_kind_names, 0,
                                 "the pilots: the comb of pilots.spacing, or NR PDSCH DMRS (38.211 7.4.1.1, "
                                 "mapping type A, the frame one slot of whole resource blocks: stream t is port "
                                 "1000 + t; the dmrs.* keys)"),
  [KEY_DMRS_TYPE] = {.path = "dmrs.config_type", .type = KT_INT, .default_text = "1", .imin = 1, .imax = 2,
                     .follows = KEY_PILOT_TYPE, .only_with = "dmrs",
                     .help = "DMRS configuration type: 1 (comb of 2, 2 CDM groups, 4 ports a symbol) or 2 "
                             "(pairs in 6, 3 CDM groups, 6 ports a symbol)"},
  [KEY_DMRS_LENGTH] = {.path = "dmrs.length", .type = KT_INT, .default_text = "1", .imin = 1, .imax = 2,
                       .follows = KEY_PILOT_TYPE, .only_with = "dmrs",
                       .help = "DMRS symbols an occasion: 1 single, 2 double (time OCC: twice the ports)"},
  [KEY_DMRS_ADD_POS] = {.path = "dmrs.additional_positions", .type = KT_INT, .default_text = "0", .imin = 0,
                        .imax = 3, .follows = KEY_PILOT_TYPE, .only_with = "dmrs",
                        .help = "dmrs-AdditionalPosition: occasions after the first (Tables 7.4.1.1.2-3/-4 at "
                                "the frame's symbols; 0..3 single, 0..1 double symbol)"},
  [KEY_DMRS_L0] = {.path = "dmrs.l0", .type = KT_INT, .default_text = "2", .imin = 2, .imax = 3,
                   .follows = KEY_PILOT_TYPE, .only_with = "dmrs",
                   .help = "the first DMRS symbol (dmrs-TypeA-Position pos2 or pos3)"},
  [KEY_DMRS_NODATA] = {.path = "dmrs.cdm_groups_without_data", .type = KT_INT, .default_text = "0", .imin = 0,
                       .imax = 3, .follows = KEY_PILOT_TYPE, .only_with = "dmrs",
                       .help = "CDM groups whose REs carry no data on DMRS symbols (0: those the streams' "
                               "ports use); the rest carry data"},
  [KEY_DMRS_BOOST] = {.path = "dmrs.power_boosting", .type = KT_INT, .default_text = "1", .imin = 0, .imax = 1,
                      .follows = KEY_PILOT_TYPE, .only_with = "dmrs",
                      .help = "1: the DMRS amplitude is sqrt(CDM groups without data) (38.214 Table 4.1-1: "
                              "0, 3, 4.77 dB above the data), 0: unit"},
  [KEY_DMRS_NID] = {.path = "dmrs.scrambling_id", .type = KT_INT, .default_text = "0", .imin = 0, .imax = 65535,
                    .follows = KEY_PILOT_TYPE, .only_with = "dmrs",
                    .help = "N_ID of the Gold sequence's c_init (slot 0, n_SCID 0)"},
  [KEY_TIME_INTERPOLATION] = {.path = "receiver.time_interpolation", .type = KT_CHOICE,
                              .default_text = "\"linear\"", .choices = &time_interp_names,
                              .follows = KEY_ESTIMATION, .only_with = "ls",
                              .help = "across symbols: linear between pilot symbols (DMRS occasions), or hold "
                                      "the nearest one's estimate"},
  [KEY_TAP_DELAYS_NS] = {.path = "channel.tap_delays_ns", .type = KT_VECTOR, .default_note = "none",
                         .imax = TDL_MAX_TAPS, .lo = 0, .hi = 1e9, .follows = KEY_PROFILE, .only_with = "custom",
                         .help = "the custom profile's tap delays in ns, one per tap (any order; the sample rate "
                                 "subcarriers x spacing turns them into samples, channel.delays = \"sample\" "
                                 "rounds them); absolute, so no delay_spread; sweep whole lists: values = "
                                 "([0.0, 30.0], [0.0, 60.0])"},
  [KEY_TAP_POWERS_DB] = {.path = "channel.tap_powers_db", .type = KT_VECTOR, .default_note = "none",
                         .imax = TDL_MAX_TAPS, .lo = -300, .hi = 300, .follows = KEY_PROFILE,
                         .only_with = "custom",
                         .help = "the custom profile's tap powers in dB, as many as tap_delays_ns, normalised "
                                 "to unit total like the tables'; channel.k_factor adds a line of sight on the "
                                 "first tap (which must be at delay 0) with K over all the taps' power"},
  [KEY_TAP_K_DB] = {.path = "channel.tap_k_db", .type = KT_VECTOR, .default_note = "none",
                    .imax = TDL_MAX_TAPS, .lo = -300, .hi = 300, .follows = KEY_PROFILE, .only_with = "custom",
                    .help = "optional: the custom profile's Rician K per tap in dB, as many as tap_delays_ns: "
                            "tap i keeps its power, K/(K+1) of it a line of sight (phase 0 at the drop's start, "
                            "turning at doppler_hz cos(45 deg) as tdl's LOS path), the rest Rayleigh; -300 dB "
                            "is a tap without (K = 1e-30); not with channel.k_factor"},
  [KEY_EBNO_OVERHEAD] = {.path = "simulation.ebno_overhead", .type = KT_CHOICE, .default_text = "\"excluded\"",
                         .choices = &ebno_overhead_names, .follows = KEY_SNR_KIND, .only_with = "ebno",
                         .help = "excluded: Eb is the energy of a data bit (MATLAB's convention); charged: the "
                                 "pilots' and the cyclic prefix's energy is charged to the data bits "
                                 "(Sionna's), N0 x (symbols x (subcarriers + cp_length)) / data REs"},
  [KEY_CODE_TYPE] = CHOICE_KEY("code.type", "\"none\"", code_kind_names, 0,
                               "channel coding: none (uncoded bits), or 5G NR LDPC (TS 38.212): one transport "
                               "block a frame, CRC, segmentation, LDPC, rate matching, its coded bits on the data "
                               "REs layer by layer over every stream; needs receiver.llr; adds BLER, CBLER, coded "
                               "BER, iterations and throughput to the results"),
  [KEY_CODE_RATE] = {.path = "code.rate", .type = KT_NUMBER, .default_text = "0.5", .lo = 0, .lo_open = 1,
                     .hi = 0.95, .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                     .help = "target code rate R: the TB size is TS 38.214 5.1.3.2's from the frame's data REs, "
                             "tx layers and the modulation (not with code.tbs or code.mcs)"},
  [KEY_CODE_TBS] = {.path = "code.tbs", .type = KT_INT, .default_note = "from code.rate", .imin = 24,
                    .imax = 1 << 30, .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                    .help = "transport block size in bits, instead of code.rate (a 38.214 size)"},
  [KEY_CODE_MCS] = {.path = "code.mcs", .type = KT_INT, .default_note = "none", .imin = 0, .imax = 28,
                    .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                    .help = "MCS index of TS 38.214 table 5.1.3.1-1 or -2 (code.mcs_table), instead of "
                            "code.rate: its rate, and its modulation, which the modulation key must name"},
  [KEY_CODE_MCS_TABLE] = {.path = "code.mcs_table", .type = KT_CHOICE, .default_text = "\"64qam\"",
                          .choices = &mcs_table_names, .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                          .help = "the MCS table: 64qam (5.1.3.1-1, MCS 0..28) or 256qam (5.1.3.1-2, 0..27)"},
  [KEY_CODE_RV] = {.path = "code.rv", .type = KT_INT, .default_text = "0", .imin = 0, .imax = 3,
                   .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                   .help = "redundancy version: where rate matching starts in the circular buffer (with "
                           "code.harq_transmissions > 1 the transmissions take 0, 2, 3, 1: not settable)"},
  [KEY_CODE_HARQ] = {.path = "code.harq_transmissions", .type = KT_INT, .default_text = "1", .imin = 1, .imax = 4,
                     .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                     .help = "HARQ with incremental redundancy: a TB whose CRC fails is sent again, up to this "
                             "many transmissions, with rv 0, 2, 3, 1 in turn over fresh channel and noise draws, "
                             "its LLRs added in the circular buffer and decoded after each; adds the residual "
                             "BLER, mean transmissions and throughput after HARQ (1: no retransmission)"},
  [KEY_CODE_DECODER] = {.path = "code.decoder", .type = KT_CHOICE, .default_text = "\"nms\"",
                        .choices = &code_decoder_names, .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                        .help = "layered normalised min-sum, layered offset min-sum, flooding belief "
                                "propagation (sum-product, the reference), or layered normalised min-sum in "
                                "int16 fixed point (LLRs quantised to 1/16, |LLR| clamped at 64, scale rounded to k/32768; the "
                                "fastest, same bits on CPU and GPU)"},
  [KEY_CODE_SCALE] = {.path = "code.scale", .type = KT_NUMBER, .default_text = "0.75", .lo = 0, .lo_open = 1,
                      .hi = 1, .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                      .help = "normalised min-sum's scale of the check messages (nms and nms16)"},
  [KEY_CODE_OFFSET] = {.path = "code.offset", .type = KT_NUMBER, .default_text = "0.5", .lo = 0, .hi = 10,
                       .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                       .help = "offset min-sum's offset of the check message magnitudes"},
  [KEY_CODE_MAX_ITERATIONS] = {.path = "code.max_iterations", .type = KT_INT, .default_text = "10", .imin = 1,
                               .imax = 1000, .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                               .help = "decoder iterations at most"},
  [KEY_CODE_EARLY_TERMINATION] = {.path = "code.early_termination", .type = KT_INT, .default_text = "1",
                                  .imin = 0, .imax = 1, .follows = KEY_CODE_TYPE, .only_with = "ldpc",
                                  .help = "1: a block's decoding stops once its decisions meet every check; "
                                          "0: always max_iterations"},
  [KEY_TARGET_BLOCK_ERRORS] = INT_KEY("simulation.target_block_errors", "100", 1, INT64_MAX, 0,
                                      "coded points (code.type = \"ldpc\"): stop after this many transport "
                                      "block errors, instead of target_errors, after min_frames frames"),
  [KEY_MAX_BLOCKS] = INT_KEY("simulation.max_blocks", "0", 0, INT64_MAX, 0,
                             "coded points: ... or after this many transport blocks (0 = no cap but max_bits)"),
  [KEY_ASD_DEG] = {.path = "channel.asd_deg", .type = KT_NUMBER, .default_note = "the table's", .lo = 0,
                   .lo_open = 1, .hi = 180, .follows = KEY_MODEL, .only_with = CDL_ONLY,
                   .help = "cdl: rms azimuth spread of departure, degrees: the model's angles scaled about their "
                           "mean to it (TR 38.901 7.7.5.1); the same for asa_deg, zsd_deg, zsa_deg"},
  [KEY_ASA_DEG] = {.path = "channel.asa_deg", .type = KT_NUMBER, .default_note = "the table's", .lo = 0,
                   .lo_open = 1, .hi = 180, .follows = KEY_MODEL, .only_with = CDL_ONLY,
                   .help = "cdl: rms azimuth spread of arrival, degrees (7.7.5.1)"},
  [KEY_ZSD_DEG] = {.path = "channel.zsd_deg", .type = KT_NUMBER, .default_note = "the table's", .lo = 0,
                   .lo_open = 1, .hi = 180, .follows = KEY_MODEL, .only_with = CDL_ONLY,
                   .help = "cdl: rms zenith spread of departure, degrees (7.7.5.1)"},
  [KEY_ZSA_DEG] = {.path = "channel.zsa_deg", .type = KT_NUMBER, .default_note = "the table's", .lo = 0,
                   .lo_open = 1, .hi = 180, .follows = KEY_MODEL, .only_with = CDL_ONLY,
                   .help = "cdl: rms zenith spread of arrival, degrees (7.7.5.1)"},
  [KEY_TRAVEL_AZIMUTH] = {.path = "channel.travel_azimuth_deg", .type = KT_NUMBER, .default_text = "0.0",
                          .lo = -360, .hi = 360, .follows = KEY_MODEL, .only_with = CDL_ONLY,
                          .help = "cdl: azimuth of the terminal's (the receiver's) direction of travel, degrees; "
                                  "a ray's Doppler shift is f_d times the cosine between it and the ray's "
                                  "arrival direction"},
  [KEY_TRAVEL_ZENITH] = {.path = "channel.travel_zenith_deg", .type = KT_NUMBER, .default_text = "90.0",
                         .lo = 0, .hi = 180, .follows = KEY_MODEL, .only_with = CDL_ONLY,
                         .help = "cdl: zenith of the direction of travel, degrees (90: horizontal)"},
  ARRAY_KEYS("tx", TX, "transmit (base station)", "mimo.tx"),
  ARRAY_KEYS("rx", RX, "receive (terminal)", "mimo.rx"),
};

int config_key_find(const char *path) {
  for (int k = 0; k < KEY_COUNT; k++)
    if (!strcmp(config_keys[k].path, path)) return k;
  return -1;
}

int config_key_default_is(const char *path, const char *text) {
  const int k = config_key_find(path);
  const char *d = k < 0 ? NULL : config_keys[k].default_text;
  if (!d || !text || !*text) return 0;
  if (config_keys[k].type == KT_CHOICE) { /* the default is quoted: "\"off\"" */
    const size_t n = strlen(text);
    return d[0] == '"' && !strncmp(d + 1, text, n) && d[n + 1] == '"' && !d[n + 2];
  }
  char *end_d, *end_t;
  const double x = strtod(d, &end_d), y = strtod(text, &end_t);
  return end_d != d && !*end_d && end_t != text && !*end_t && x == y;
}

int config_key_is_group(const char *path) {
  const size_t n = strlen(path);
  for (int k = 0; k < KEY_COUNT; k++)
    if (!strncmp(config_keys[k].path, path, n) && config_keys[k].path[n] == '.') return 1;
  return 0;
}

/* Every name a config may use: the keys, their groups (spelt into groups),
 * and sweep. */
static size_t known_names(const char **names, char (*groups)[32]) {
  size_t n = 0;
  for (int k = 0; k < KEY_COUNT; k++) {
    names[n++] = config_keys[k].path;
    const char *dot = strchr(config_keys[k].path, '.');
    if (!dot) continue;
    snprintf(groups[k], sizeof groups[k], "%.*s", (int)(dot - config_keys[k].path), config_keys[k].path);
    int seen = 0;
    for (size_t j = 0; j < n; j++) seen |= !strcmp(names[j], groups[k]);
    if (!seen) names[n++] = groups[k];
  }
  names[n++] = "sweep";
  return n;
}

void config_key_unknown(const char *path, char *msg, size_t n) {
  const char *names[2 * KEY_COUNT + 1];
  char groups[KEY_COUNT][32];
  const char *near = cfg_suggest(path, names, known_names(names, groups));
  char shown[300]; /* a --set key may hold anything */
  cfg_escape(path, shown, sizeof shown);
  if (near) snprintf(msg, n, "unknown key '%s' (did you mean '%s'?)", shown, near);
  else snprintf(msg, n, "unknown key '%s'", shown);
}

/* 1e15, not 1e+15: bounds as a person writes them */
static void format_bound(double v, char *buf, size_t n) {
  char tmp[40];
  snprintf(tmp, sizeof tmp, "%g", v);
  cfg_tidy_exponent(tmp, buf, n);
}

static void number_expected(const config_key *key, char *buf, size_t n) {
  char lo[40], hi[40];
  format_bound(key->lo, lo, sizeof lo);
  format_bound(key->hi, hi, sizeof hi);
  const int has_lo = isfinite(key->lo), has_hi = isfinite(key->hi);
  if (has_lo && has_hi)
    snprintf(buf, n, "a number in %c%s, %s%c", key->lo_open ? '(' : '[', lo, hi, key->hi_open ? ')' : ']');
  else if (has_lo)
    snprintf(buf, n, "a number %s %s", key->lo_open ? ">" : ">=", lo);
  else if (has_hi)
    snprintf(buf, n, "a number %s %s", key->hi_open ? "<" : "<=", hi);
  else
    snprintf(buf, n, "a number");
}

void config_key_expected(config_key_id k, char *buf, size_t n) {
  const config_key *key = &config_keys[k];
  switch (key->type) {
    case KT_INT:
      if (key->imax == INT64_MAX) snprintf(buf, n, "an integer >= %lld", (long long)key->imin);
      else snprintf(buf, n, "an integer in [%lld, %lld]", (long long)key->imin, (long long)key->imax);
      break;
    case KT_NUMBER: number_expected(key, buf, n); break;
    case KT_NUMBERS: {
      char one[96];
      number_expected(key, one, sizeof one);
      snprintf(buf, n, "%s or a non-empty list of them", one);
      break;
    }
    case KT_VECTOR: {
      char one[96];
      number_expected(key, one, sizeof one);
      snprintf(buf, n, "a non-empty list of at most %lld numbers, each %s", (long long)key->imax,
               one + strlen("a number ") /* "in [0, 1e9]" */);
      break;
    }
    case KT_CHOICE: {
      size_t len = (size_t)snprintf(buf, n, "one of ");
      for (int i = 0; i < key->choices->count && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", key->choices->names[i]);
      break;
    }
  }
}

/* The trees are read with auto-convert on, so an integer reads as a float too. */
static int number_ok(const config_key *key, const config_setting_t *s) {
  if (!config_setting_is_number(s)) return 0;
  const double x = config_setting_get_float(s);
  if (!isfinite(x)) return 0;
  if (key->lo_open ? !(x > key->lo) : !(x >= key->lo)) return 0;
  if (key->hi_open ? !(x < key->hi) : !(x <= key->hi)) return 0;
  return 1;
}

/* The enum value a choice setting names; -1 when it names none. */
static int choice_value(const config_key *key, const config_setting_t *s) {
  if (config_setting_type(s) != CONFIG_TYPE_STRING) return -1;
  return name_to_value(key->choices, config_setting_get_string(s));
}

/* Every element of the list or array s a number within key's bounds: 0, or
 * -1 with the first one that is not in msg and *bad. */
static int elements_check(const config_key *key, const config_setting_t *s, char *msg, size_t n,
                          const config_setting_t **bad) {
  char expected[160], got[96];
  for (int i = 0; i < config_setting_length(s); i++) {
    const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
    if (number_ok(key, e)) continue;
    *bad = e;
    number_expected(key, expected, sizeof expected);
    cfg_describe(e, got, sizeof got);
    snprintf(msg, n, "%s[%d]: expected %s, got %s", key->path, i, expected, got);
    return -1;
  }
  return 0;
}

int config_key_check(config_key_id k, const config_setting_t *s, char *msg, size_t n,
                     const config_setting_t **bad) {
  const config_key *key = &config_keys[k];
  char expected[160], got[96];
  *bad = s;
  switch (key->type) {
    case KT_INT: {
      const int type = config_setting_type(s);
      long long v = 0;
      if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64 || config_exact_integer(s, &v)) {
        if (type != CONFIG_TYPE_FLOAT) v = config_setting_get_int64(s);
        if (v >= key->imin && v <= key->imax) return 0;
      }
      break;
    }
    case KT_NUMBER:
      if (number_ok(key, s)) return 0;
      break;
    case KT_NUMBERS:
      if (config_setting_is_number(s)) {
        if (number_ok(key, s)) return 0;
        number_expected(key, expected, sizeof expected);
        cfg_describe(s, got, sizeof got);
        snprintf(msg, n, "%s: expected %s, got %s", key->path, expected, got);
        return -1;
      }
      if ((config_setting_is_array(s) || config_setting_is_list(s)) && config_setting_length(s) > 0) {
        return elements_check(key, s, msg, n, bad);
      }
      break;
    case KT_VECTOR:
      if ((config_setting_is_array(s) || config_setting_is_list(s)) && config_setting_length(s) > 0 &&
          config_setting_length(s) <= key->imax) {
        return elements_check(key, s, msg, n, bad);
      }
      break;
    case KT_CHOICE:
      if (choice_value(key, s) >= 0) return 0;
      if (config_setting_type(s) == CONFIG_TYPE_STRING) {
        const char *near =
            cfg_suggest(config_setting_get_string(s), key->choices->names, (size_t)key->choices->count);
        config_key_expected(k, expected, sizeof expected);
        cfg_describe(s, got, sizeof got);
        if (near)
          snprintf(msg, n, "%s: expected %s, got %s (did you mean \"%s\"?)", key->path, expected, got, near);
        else
          snprintf(msg, n, "%s: expected %s, got %s", key->path, expected, got);
        return -1;
      }
      break;
  }
  config_key_expected(k, expected, sizeof expected);
  cfg_describe(s, got, sizeof got);
  snprintf(msg, n, "%s: expected %s, got %s", key->path, expected, got);
  return -1;
}

int config_exact_integer(const config_setting_t *s, long long *v) {
  if (config_setting_type(s) != CONFIG_TYPE_FLOAT) return 0;
  const double x = config_setting_get_float(s);
  if (!(fabs(x) <= 9007199254740992.0) || x != trunc(x)) return 0;
  *v = (long long)x;
  return 1;
}

void config_key_normalize(config_key_id k, config_setting_t *s) {
  long long v;
  if (config_keys[k].type != KT_INT || !config_exact_integer(s, &v)) return;
  /* libconfig has no call that changes a setting's type; its struct is
   * public, and a float holds nothing an integer setting needs besides */
  if (v >= INT32_MIN && v <= INT32_MAX) {
    s->type = CONFIG_TYPE_INT;
    s->value.ival = (int)v;
  } else {
    s->type = CONFIG_TYPE_INT64;
    s->value.llval = v;
  }
  s->format = CONFIG_FORMAT_DEFAULT;
}

int config_key_applies_with(const config_key *key, const char *value) {
  if (!key->only_with) return 1;
  const size_t n = strlen(value);
  for (const char *c = key->only_with; *c;) {
    const char *bar = strchr(c, '|');
    const size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == n && !strncmp(c, value, n)) return 1;
    if (!bar) break;
    c = bar + 1;
  }
  return 0;
}

void config_key_only_with_text(const config_key *key, char *out, size_t n) {
  size_t at = 0;
  const char *c = key->only_with ? key->only_with : "";
  at += (size_t)snprintf(out, n, "\"");
  for (; *c && at + 8 < n; c++) {
    /* the five CDL models read as one range */
    if (!strncmp(c, CDL_ONLY, strlen(CDL_ONLY))) {
      at += (size_t)snprintf(out + at, n - at, "cdl-a\" .. \"cdl-e");
      c += strlen(CDL_ONLY) - 1;
      continue;
    }
    at += *c == '|' ? (size_t)snprintf(out + at, n - at, "\" or \"") : (size_t)snprintf(out + at, n - at, "%c", *c);
  }
  if (at < n) snprintf(out + at, n - at, "\"");
}

int config_key_follows_receiver(config_key_id k) {
  const config_key *key = &config_keys[k];
  return key->only_with && (key->follows == KEY_EQUALIZER || key->follows == KEY_ESTIMATION || key->follows == KEY_LLR);
}

int config_key_choice(config_key_id k, const config_setting_t *s) { return choice_value(&config_keys[k], s); }

void sim_config_print_keys(FILE *f) {
  static const char *const type_names[] = {
      [KT_INT] = "integer", [KT_NUMBER] = "number", [KT_NUMBERS] = "number(s)", [KT_CHOICE] = "string",
      [KT_VECTOR] = "list"};
  fprintf(f, "Config keys (libconfig syntax; from the command line: --set KEY=VALUE):\n");
  for (int k = 0; k < KEY_COUNT; k++) {
    const config_key *key = &config_keys[k];
    char expected[160];
    config_key_expected((config_key_id)k, expected, sizeof expected);
    fprintf(f, "  %-25s %-9s default %-18s %s\n", key->path, type_names[key->type],
            key->default_text ? key->default_text : key->default_note, expected);
    fprintf(f, "  %-25s %s", "", key->help);
    if (key->only_with)
    {
      char allowed[128];
      config_key_only_with_text(key, allowed, sizeof allowed);
      fprintf(f, "; only with %s = %s", config_keys[key->follows].path, allowed);
    }
    if (key->per_run) fprintf(f, "; one value per run, not swept");
    fprintf(f, "\n");
  }
  fprintf(f,
          "  %-25s %-9s default %-18s %s\n"
          "  %-25s %s\n"
          "  %-25s %s\n"
          "  %-25s %s\n",
          "sweep", "list", "()", "({ key = \"KEY\"; values = [V1, V2, ...]; }, ...)", "",
          "points: the cartesian product of the entries, the first outermost, times "
          "simulation.snr_db innermost",
          "", "{ keys = [\"K1\", \"K2\"]; values = ([A1, B1], [A2, B2]); } sets keys together (one axis)",
          "", "a numeric key's values may be a range { from = 1; to = 8; step = 1; }");
}
