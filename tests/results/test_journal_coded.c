/* The journal's record of a coded point (results/journal.h): its coded
 * counts (the `coded:` word) read back exactly, sums of squares included;
 * an uncoded point's line has no such word and reads back with zero coded
 * counts, as lines written before the coded link do; and a coded word whose
 * counts do not add up (or are not numbers) is refused. HARQ: a chunk whose
 * TBs took more than one transmission carries HARQ's four counts in the
 * word and reads them back exactly; one without (every TB sent once) keeps
 * the word as it was and reads back one transmission a TB; HARQ counts that
 * cannot be (more transmissions than 4 a TB, more residual losses than first
 * ones) are refused. Drops (channel.drop_frames > 1): a chunk whose sums
 * of squares are over drops of several TBs carries HARQ's four counts and
 * the drops' three sums (TBs lost, lost after HARQ, delivered, squared per
 * drop) and reads them back exactly; a drop sum outside [count, count^2]
 * is refused. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "results/journal.h"
#include "testutil.h"

static journal_record record(int coded, int harq, int drops) {
  journal_record r;
  memset(&r, 0, sizeof r);
  r.point = 3;
  r.work_key = 0x0123456789abcdefULL;
  r.point_key = 0xfedcba9876543210ULL;
  r.chunk = 5;
  r.tx = 2;
  r.n.frames = 32;
  r.n.bits = 32 * 4032;
  r.n.stream_errors[0] = 700;
  r.n.stream_errors[1] = 811;
  r.n.bit_errors = 1511;
  r.n.sum_sq = 81234.0;
  r.n.gmi_loss[0] = 123.25;
  r.n.gmi_loss[1] = 99.125;
  r.n.gmi_loss_sq = 0.3;
  snprintf(r.stop, sizeof r.stop, "%s", coded ? "target_block_errors" : "more");
  snprintf(r.backend, sizeof r.backend, "cpu");
  if (coded) {
    tally_coded *c = &r.n.coded;
    c->blocks = 32;
    c->block_errors = 9;
    c->cbs = 96;
    c->cb_errors = 17;
    c->info_bits = 32 * 6144;
    c->info_errors = 3001;
    c->iterations = 555;
    c->cb_sq = 41.0;
    c->info_sq = 1.0 / 3.0; /* not a short binary fraction: hex floats keep it exact */
    /* HARQ: 9 lost at first, 2 after; 23 TBs in 1, 4 in 2, 3 in 3, 2 in 4 */
    c->harq_errors = harq ? 2 : 9;
    c->transmissions = harq ? 23 + 8 + 9 + 8 : 32;
    c->transmissions_sq = harq ? 23 + 16 + 27 + 32 : 32;
    c->delivered_transmissions = harq ? 23 + 8 + 9 + 4 : 23;
    /* one TB a unit: the squares are the counts */
    c->block_sq = c->block_errors;
    c->harq_sq = c->harq_errors;
    c->delivered_sq = c->blocks - c->harq_errors;
    if (drops) { /* 8 drops of 4 TBs: errors 3,2,2,1,1,0,0,0, no HARQ */
      c->block_sq = c->harq_sq = 9 + 4 + 4 + 1 + 1;
      c->delivered_sq = 1 + 4 + 4 + 9 + 9 + 16 + 16 + 16;
      c->transmissions_sq = 8 * 16;
      c->delivered_transmissions = 4 * 23;
    }
  }
  return r;
}

static int same_coded(const tally_coded *a, const tally_coded *b) {
  return a->blocks == b->blocks && a->block_errors == b->block_errors && a->cbs == b->cbs &&
         a->cb_errors == b->cb_errors && a->info_bits == b->info_bits && a->info_errors == b->info_errors &&
         a->iterations == b->iterations && a->cb_sq == b->cb_sq && a->info_sq == b->info_sq &&
         a->harq_errors == b->harq_errors && a->transmissions == b->transmissions &&
         a->transmissions_sq == b->transmissions_sq && a->delivered_transmissions == b->delivered_transmissions &&
         a->block_sq == b->block_sq && a->harq_sq == b->harq_sq && a->delivered_sq == b->delivered_sq;
}

/* line (with its '\n') without the newline, parsed. */
static int parse(char *line, journal_record *back, char *why, size_t n) {
  line[strcspn(line, "\n")] = '\0';
  return journal_parse(line, back, why, n);
}

int main(void) {
  char line[2048], why[160];
  for (int coded = 0; coded < 4; coded++) {
    const journal_record r = record(coded > 0, coded == 2, coded == 3);
    CHECK(journal_format(&r, line, sizeof line) > 0, "format");
    CHECK((strstr(line, " coded:") != NULL) == (coded > 0), "coded %d: the coded word %s: %s", coded,
          coded ? "missing" : "present", line);
    /* the word's fields: 9 without HARQ (as before it), 13 with, 16 over drops */
    const char *w = strstr(line, " coded:");
    int semis = 0;
    for (w = w ? w + 1 : NULL; w && *w && *w != ' ' && *w != '\n'; w++) semis += *w == ';';
    if (coded) CHECK(semis == (coded == 3 ? 15 : coded == 2 ? 12 : 8), "coded %d: %d fields in the coded word: %s", coded, semis + 1, line);
    journal_record back;
    const int rc = parse(line, &back, why, sizeof why);
    CHECK(rc == 0, "coded %d: parse: %s", coded, why);
    if (rc) continue;
    CHECK(same_coded(&r.n.coded, &back.n.coded), "coded %d: the coded counts differ after a round trip", coded);
    CHECK(back.n.bit_errors == r.n.bit_errors && back.n.gmi_loss_sq == r.n.gmi_loss_sq && !strcmp(back.stop, r.stop),
          "coded %d: the other fields differ", coded);
  }
  /* a damaged coded word, its check recomputed so that only the counts are
   * at fault: more lost blocks than blocks, a count that is no number, a
   * sum missing */
  static const char *const bad[] = {"coded:32;33;96;17;196608;3001;555;0x1.48p+5;0x1p-2",
                                    "coded:32;9;96;x;196608;3001;555;0x1.48p+5;0x1p-2",
                                    "coded:32;9;96;17;196608;3001;555;0x1.48p+5",
                                    /* HARQ: more residual losses than first ones; more than 4
                                     * transmissions a TB; fewer transmissions than TBs; three
                                     * of the four counts */
                                    "coded:32;9;96;17;196608;3001;555;0x1.48p+5;0x1p-2;10;48;98;44",
                                    "coded:32;9;96;17;196608;3001;555;0x1.48p+5;0x1p-2;2;129;600;100",
                                    "coded:32;9;96;17;196608;3001;555;0x1.48p+5;0x1p-2;2;31;98;30",
                                    "coded:32;9;96;17;196608;3001;555;0x1.48p+5;0x1p-2;2;48;98",
                                    /* drops: a lost-TB sum below its count, above its square;
                                     * two of the three sums */
                                    "coded:32;9;96;17;196608;3001;555;0x1.48p+5;0x1p-2;9;32;128;92;8;19;75",
                                    "coded:32;9;96;17;196608;3001;555;0x1.48p+5;0x1p-2;9;32;128;92;82;19;75",
                                    "coded:32;9;96;17;196608;3001;555;0x1.48p+5;0x1p-2;9;32;128;92;19;19"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    journal_record r = record(1, 0, 0);
    memset(&r.n.coded, 0, sizeof r.n.coded);
    r.n.coded.blocks = 1; /* a coded word to replace */
    char good[2048];
    journal_format(&r, good, sizeof good);
    good[strcspn(good, "\n")] = '\0';
    char *word = strstr(good, " coded:"), *check = strrchr(good, ' ');
    if (!word || !check) {
      CHECK(0, "no coded word to damage");
      continue;
    }
    *word = '\0';
    char text[2200];
    snprintf(text, sizeof text, "%s %s", good, bad[i]);
    /* a valid check (the journal's FNV-1a of the text), so that only the
     * counts can be refused */
    uint32_t h = 2166136261u;
    for (const char *c = text; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
    char full[2300];
    snprintf(full, sizeof full, "%s %08x", text, h);
    journal_record back;
    CHECK(journal_parse(full, &back, why, sizeof why) != 0, "bad coded word %zu accepted", i);
    CHECK(strstr(why, "coded") != NULL, "bad coded word %zu: refused for another reason: %s", i, why);
  }
  return test_finish("test_journal_coded");
}
