/* Starting and ending the MPI job (job.h). */
#include "mpi/job.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mpi_job_launched(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

int mpi_job_start(mpi_job *j, int *argc, char ***argv) {
  memset(j, 0, sizeof *j);
  if (MPI_Init(argc, argv) != MPI_SUCCESS) {
    fprintf(stderr, "ofdmsim: error: MPI_Init failed\n");
    return -1;
  }
  MPI_Comm_size(MPI_COMM_WORLD, &j->size);
  MPI_Comm_rank(MPI_COMM_WORLD, &j->rank);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j->rank, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &j->local_size);
  MPI_Comm_rank(node, &j->local_rank);
  MPI_Comm_free(&node);
  if (gethostname(j->host, sizeof j->host - 1)) snprintf(j->host, sizeof j->host, "unknown");
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
