/* A cdl point's clusters as a profile, its geometry, and a frame's ray terms
 * on the host (channel/cdl_channel.h). */
#include "channel/cdl_channel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "channel/cdl_array.h"

static const cdl_table *table_of(pdp_kind kind) {
  return pdp_is_cdl(kind) ? &cdl_tables[kind - PDP_CDL_A] : NULL;
}

int cdl_pdp_make(pdp_kind kind, double delay_spread, double k_factor, double max_delay, tdl_pdp *out, char *err,
                 size_t errlen) {
  const cdl_table *t = table_of(kind);
  memset(out, 0, sizeof *out);
  if (!t || !(delay_spread > 0.0)) {
    snprintf(err, errlen, "expected a CDL model and a positive delay spread, got delay spread %g samples",
             delay_spread);
    return -1;
  }
  cdl_cluster c[CDL_MAX_CLUSTERS];
  const int L = cdl_clusters(t, delay_spread, c); /* delay_ns is in samples here: the spread is */
  double power[CDL_MAX_CLUSTERS], nlos = 0.0;
  for (int n = 0; n < L; n++) {
    power[n] = c[n].power;
    if (!(t->los && n == 0)) nlos += power[n];
  }
  /* K override: the LOS power K times the rest, then unit total again */
  if (t->los && !isnan(k_factor)) {
    power[0] = k_factor * nlos;
    const double total = power[0] + nlos;
    for (int n = 0; n < L; n++) power[n] /= total;
  }
  out->taps = L;
  for (int n = 0; n < L; n++) {
    out->delay[n] = c[n].delay_ns;
    out->power[n] = (float)power[n];
    if (c[n].delay_ns > max_delay) {
      snprintf(err, errlen, "CDL-%c with delay spread %.4g samples reaches %.4g samples, more than the %.4g allowed",
               t->name, delay_spread, c[n].delay_ns, max_delay);
      return -1;
    }
  }
  out->los_power = 0.0f;
  return 0;
}

static double wrap180(double a) {
  a = fmod(a + 180.0, 360.0);
  if (a < 0.0) a += 360.0;
  return a - 180.0;
}

/* The power-weighted circular mean of the angles (degrees). */
static double circular_mean(const double *a, const double *w, int n) {
  double re = 0.0, im = 0.0;
  for (int i = 0; i < n; i++) {
    re += w[i] * cos(a[i] * CDL_DEG);
    im += w[i] * sin(a[i] * CDL_DEG);
  }
  return atan2(im, re) / CDL_DEG;
}

double cdl_rms_spread(const double *angles, const double *w, int n) {
  const double mu = circular_mean(angles, w, n);
  double s = 0.0, total = 0.0;
  for (int i = 0; i < n; i++) {
    const double d = wrap180(angles[i] - mu);
    s += w[i] * d * d;
    total += w[i];
  }
  return sqrt(s / total);
}

/* 7.7.5.1: every ray angle of one dimension scaled about the model's mean
 * so that the rays' rms spread becomes `desired`: the cluster centres
 * c[n] and the per-offset spread *per_offset, in place. */
static void scale_angles(double desired, const cdl_geom *g, int los, double *centre, double *per_offset) {
  if (!(desired > 0.0)) return;
  double a[CDL_MAX_CLUSTERS * CDL_RAYS] = {0}, w[CDL_MAX_CLUSTERS * CDL_RAYS] = {0};
  int k = 0;
  for (int n = 0; n < g->L; n++) {
    const int rays = los && n == 0 ? 1 : CDL_RAYS;
    for (int m = 0; m < rays; m++, k++) {
      a[k] = centre[n] + (rays == 1 ? 0.0 : *per_offset * g->offset[m]);
      w[k] = g->amp[n] * g->amp[n];
    }
  }
  const double as = cdl_rms_spread(a, w, k), mu = circular_mean(a, w, k);
  if (!(as > 0.0)) return;
  const double s = desired / as;
  for (int n = 0; n < g->L; n++) centre[n] = mu + s * wrap180(centre[n] - mu);
  *per_offset *= s;
}

static int make_end(const link_panel *pn, int want, const char *which, cdl_end *end, char *err, size_t errlen) {
  cdl_array a;
  a.rows = pn->rows;
  a.columns = pn->columns;
  a.spacing_v = pn->spacing_v;
  a.spacing_h = pn->spacing_h;
  a.pol = pn->pol == PANEL_POL_V ? CDL_POL_SINGLE : CDL_POL_DUAL;
  a.bearing_deg = pn->bearing_deg;
  a.downtilt_deg = pn->downtilt_deg;
  const int n = cdl_array_elements(&a);
  if (n != want || n > CDL_MAX_ELEMENTS || n < 1) {
    snprintf(err, errlen, "the %s array has %d elements, the link %d", which, n, want);
    return -1;
  }
  end->n = n;
  end->pattern = (int)pn->pattern;
  end->bearing = pn->bearing_deg * CDL_DEG;
  end->sin_tilt = sin(pn->downtilt_deg * CDL_DEG);
  end->cos_tilt = cos(pn->downtilt_deg * CDL_DEG);
  for (int k = 0; k < n; k++) {
    cdl_array_position(&a, k, end->pos[k]);
    const int second = pn->pol != PANEL_POL_V && k % 2;
    const double zeta = pn->pol == PANEL_POL_X ? (second ? -45.0 : 45.0) : (second ? 90.0 : 0.0);
    end->slant[k] = zeta * CDL_DEG;
  }
  return 0;
}

int cdl_geom_make(const link_params *p, cdl_geom *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  const cdl_table *t = table_of(p->profile);
  if (!t || p->pdp.taps != t->clusters) {
    snprintf(err, errlen, "cdl_geom_make: not a cdl point with its clusters resolved");
    return -1;
  }
  if (make_end(&p->cdl.tx, p->tx, "transmit", &g->tx, err, errlen) ||
      make_end(&p->cdl.rx, p->rx, "receive", &g->rx, err, errlen))
    return -1;
  g->L = t->clusters;
  g->los = t->los;
  g->xpr_amp = sqrt(pow(10.0, -t->xpr_db / 10.0));
  g->nu = link_doppler_per_sample(p);
  g->fade = tdl_fade_of(p);
  const double tz = p->cdl.travel_zenith_deg * CDL_DEG, ta = p->cdl.travel_azimuth_deg * CDL_DEG;
  g->v[0] = sin(tz) * cos(ta);
  g->v[1] = sin(tz) * sin(ta);
  g->v[2] = cos(tz);
  for (int m = 0; m < CDL_RAYS; m++) g->offset[m] = cdl_ray_offset[m];
  for (int n = 0; n < g->L; n++) {
    g->amp[n] = sqrt((double)p->pdp.power[n] / (t->los && n == 0 ? 1.0 : (double)CDL_RAYS));
    g->aod[n] = t->aod[n];
    g->aoa[n] = t->aoa[n];
    g->zod[n] = t->zod[n];
    g->zoa[n] = t->zoa[n];
  }
  g->c_asd = t->c_asd;
  g->c_asa = t->c_asa;
  g->c_zsd = t->c_zsd;
  g->c_zsa = t->c_zsa;
  scale_angles(p->cdl.asd, g, t->los, g->aod, &g->c_asd);
  scale_angles(p->cdl.asa, g, t->los, g->aoa, &g->c_asa);
  scale_angles(p->cdl.zsd, g, t->los, g->zod, &g->c_zsd);
  scale_angles(p->cdl.zsa, g, t->los, g->zoa, &g->c_zsa);
  return 0;
}

void cdl_draw_terms(const link_params *p, const cdl_geom *g, uint64_t frame, float *terms) {
  const re_ctx c = re_ctx_of(p, NULL);
  const size_t stride = (size_t)g->L * CDL_RAYS;
  cf32 *amp = cdl_terms_amp(terms, g->L);
  for (int n = 0; n < g->L; n++)
    for (int m = 0; m < CDL_RAYS; m++) {
      const size_t j = (size_t)n * CDL_RAYS + (size_t)m;
      cdl_ray_terms(g, c, frame, n, m, terms + j, amp + j, stride);
    }
}
