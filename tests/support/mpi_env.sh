# Open MPI settings for the tests, sourced (after harness.sh): root in a container is allowed
# (CI), the shared-memory transport copies through its own buffers (the
# kernel's cross-process copy is often barred in containers), and ranks wait
# without spinning when oversubscribed.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_mpi_yield_when_idle=1
# Under the sanitizers (scripts/sanitize.sh): Open MPI's components stay
# loaded and allocations get whole stacks, so its own leaks at exit match
# the suppressions by library name (tests/support/lsan.supp).
if [ -n "${ASAN_OPTIONS:-}" ]; then
  export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
  export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
fi

# mpi_test_or_skip NAME: exits 77 (skipped) unless this build has the MPI
# engine and mpirun is here.
mpi_test_or_skip() {
  if [ "${OFDMSIM_HAVE_MPI:-0}" != 1 ] || ! command -v mpirun >/dev/null; then
    echo "$1: skipped: this build has no MPI engine or there is no mpirun"
    exit 77
  fi
}
