/* Starting and ending the MPI job (job.h). */
#define _GNU_SOURCE
#include "mpi/job.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"

int mpi_job_launched(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

static int env_int(const char *const names[], size_t n, int *out) {
  for (size_t i = 0; i < n; i++) {
    const char *v = getenv(names[i]);
    char *end;
    if (!v || !*v) continue;
    const long x = strtol(v, &end, 10);
    if (*end || x < 0 || x > 1 << 24) continue;
    *out = (int)x;
    return 0;
  }
  return -1;
}

int mpi_job_shape_from_env(int *rank, int *local_rank, int *local_size) {
  static const char *const r[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
  static const char *const lr[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"};
  static const char *const ls[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"};
  if (env_int(r, 4, rank) || env_int(lr, 3, local_rank) || env_int(ls, 3, local_size)) return -1;
  return *local_rank < *local_size ? 0 : -1;
}

/* When this process started, on clock_seconds()'s clock: its start time in
 * /proc/self/stat (clock ticks since boot) against CLOCK_BOOTTIME, so that a
 * rank's start-up counts the launcher's exec and the libraries' loading
 * too; now where that cannot be read. */
static double process_start(void) {
  const double now = clock_seconds();
  char buf[1024];
  FILE *f = fopen("/proc/self/stat", "r");
  const size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = '\0';
  const char *p = strrchr(buf, ')'); /* the name may hold spaces */
  unsigned long long ticks = 0;
  int field = 2;
  for (; p && *p && field < 22; p++)
    if (*p == ' ') field++;
  const long hz = sysconf(_SC_CLK_TCK);
  struct timespec boot;
  if (!p || field != 22 || sscanf(p, "%llu", &ticks) != 1 || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot))
    return now;
  const double age = (double)boot.tv_sec + 1e-9 * (double)boot.tv_nsec - (double)ticks / (double)hz;
  return age >= 0 && age < 3600 ? now - age : now;
}

int mpi_job_start(mpi_job *j, int *argc, char ***argv) {
  memset(j, 0, sizeof *j);
  j->t_start = process_start();
  int level = MPI_THREAD_SINGLE;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &level) != MPI_SUCCESS) {
    fprintf(stderr, "ofdmsim: error: MPI_Init failed\n");
    return -1;
  }
  if (level < MPI_THREAD_FUNNELED) {
    fprintf(stderr, "ofdmsim: error: this MPI offers no MPI_THREAD_FUNNELED (a rank computes on a second thread)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm_size(MPI_COMM_WORLD, &j->size);
  MPI_Comm_rank(MPI_COMM_WORLD, &j->rank);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j->rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &j->local_size);
  MPI_Comm_rank(node, &j->local_rank);
  MPI_Comm_free(&node);
  if (gethostname(j->host, sizeof j->host - 1)) snprintf(j->host, sizeof j->host, "unknown");
  j->t_mpi = clock_seconds();
  return 0;
}

int mpi_job_agree(const mpi_job *j, int rc) {
  (void)j;
  int all = rc;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

void mpi_job_end(mpi_job *j) {
  (void)j;
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}
