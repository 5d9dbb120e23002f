/* The MPI job this process is a rank of (Open MPI; a build without it has no
 * mpi/ and never calls these). Only a process started by mpirun/srun starts
 * MPI: a plain `ofdmsim` stays a plain process. */
#ifndef OFDMSIM_MPI_JOB_H
#define OFDMSIM_MPI_JOB_H

typedef struct mpi_job {
  int size, rank;
  int local_size, local_rank; /* the ranks of this node (MPI_COMM_TYPE_SHARED) */
  char host[64];
  double t_start; /* when this process started, on clock_seconds()'s clock */
  /* When its start-up's steps ended, on the same clock (0: not reached):
   * MPI_Init, taking its GPU (the CUDA context), and the config and the
   * backend set up; the lane adds its first unit's start (lane_times). */
  double t_mpi, t_gpu, t_ready;
} mpi_job;

/* 1 when a launcher started this process as a rank of a job (its
 * environment says so: Open MPI, PMIx or PMI), else 0. */
int mpi_job_launched(void);
/* This process's rank, and its node-local rank and node size, as the
 * launcher's environment gives them before MPI_Init (Open MPI, MPICH's
 * Hydra, Slurm). 0, or -1 when it does not say all three. */
int mpi_job_shape_from_env(int *rank, int *local_rank, int *local_size);
/* MPI_Init (MPI_THREAD_FUNNELED: a rank computes on a second thread that
 * never calls MPI, lane.h) and the job's shape. 0, or -1 with the message
 * printed. */
int mpi_job_start(mpi_job *j, int *argc, char ***argv);
/* The largest rc of all ranks (every rank calls it): the job's verdict on a
 * step every rank took, such as reading the config. */
int mpi_job_agree(const mpi_job *j, int rc);
void mpi_job_end(mpi_job *j);

#endif
