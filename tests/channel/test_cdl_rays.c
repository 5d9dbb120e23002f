/* The clusters of every CDL model at two delay spreads: delays the table's
 * times the spread, powers the table's in linear with unit total, and each
 * cluster's rays spread about its centre by cASD/cASA/cZSD/cZSA (rms over the
 * 20 rays, to the offsets' four-digit rounding), the LOS path a single ray. */
#include <math.h>

#include "channel/cdl_rays.h"
#include "testutil.h"

static double rms_about(const double *v, int n, double centre) {
  double s = 0;
  for (int i = 0; i < n; i++) s += (v[i] - centre) * (v[i] - centre);
  return sqrt(s / n);
}

int main(void) {
  static const double spreads[] = {30.0, 300.0};
  for (int i = 0; i < CDL_MODELS; i++) {
    const cdl_table *t = &cdl_tables[i];
    for (int s = 0; s < 2; s++) {
      cdl_cluster c[CDL_MAX_CLUSTERS];
      int n = cdl_clusters(t, spreads[s], c);
      CHECK(n == t->clusters, "CDL-%c: %d clusters", t->name, n);
      double total = 0, ref = 0;
      for (int k = 0; k < n; k++) ref += pow(10.0, t->power_db[k] / 10.0);
      for (int k = 0; k < n; k++) {
        total += c[k].power;
        CHECK(fabs(c[k].delay_ns - t->delay[k] * spreads[s]) < 1e-9, "CDL-%c cluster %d delay %g ns", t->name, k,
              c[k].delay_ns);
        CHECK(fabs(10 * log10(c[k].power * ref) - t->power_db[k]) < 1e-9, "CDL-%c cluster %d power", t->name, k);
        int los = t->los && k == 0;
        CHECK(c[k].rays == (los ? 1 : 20), "CDL-%c cluster %d has %d rays", t->name, k, c[k].rays);
        if (los) {
          CHECK(c[k].aoa[0] == t->aoa[0] && c[k].zod[0] == t->zod[0], "CDL-%c LOS ray at the table's angles", t->name);
          continue;
        }
        const struct {
          const double *v;
          double centre, spread;
          const char *name;
        } sp[4] = {{c[k].aod, t->aod[k], t->c_asd, "ASD"},
                   {c[k].aoa, t->aoa[k], t->c_asa, "ASA"},
                   {c[k].zod, t->zod[k], t->c_zsd, "ZSD"},
                   {c[k].zoa, t->zoa[k], t->c_zsa, "ZSA"}};
        for (int a = 0; a < 4; a++) {
          double r = rms_about(sp[a].v, 20, sp[a].centre);
          CHECK(fabs(r / sp[a].spread - 1.0) < 0.01, "CDL-%c cluster %d %s %.4f vs c = %g", t->name, k, sp[a].name, r,
                sp[a].spread);
        }
      }
      CHECK(fabs(total - 1.0) < 1e-12, "CDL-%c powers sum to %.15f", t->name, total);
    }
  }
  return test_finish("test_cdl_rays");
}
