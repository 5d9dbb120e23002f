#!/usr/bin/env bash
# Portable builds (issue 23, item 16): -DOFDMSIM_NATIVE=OFF builds the CPU code
# for a CPU level every node has (x86-64-v3) instead of -march=native;
# `cmake --install` refuses a native-tuned build before copying anything;
# the Slurm scripts build and run the portable binary. Configure only: no
# compiling here.
source "$OFDMSIM_SOURCE_DIR/tests/support/harness.sh"
cd "$OFDMSIM_SOURCE_DIR" || exit 1
command -v cmake >/dev/null || { echo "no cmake: skipped"; exit 77; }
case $(uname -m) in x86_64 | amd64) ;; *) echo "not x86-64: skipped"; exit 77 ;; esac
quick=(-DOFDMSIM_CUDA=OFF -DOFDMSIM_MPI=OFF -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=Release)

cmake -S . -B "$tmp/portable" "${quick[@]}" -DOFDMSIM_NATIVE=OFF >"$tmp/p.log" 2>&1
check "a portable configure succeeds" test $? -eq 0
check "... compiles for x86-64-v3" grep -q -- '-march=x86-64-v3' "$tmp/portable/compile_commands.json"
check "... never for this machine alone" bash -c '! grep -q -- "-march=native" "$0"' "$tmp/portable/compile_commands.json"
check "... and records it in the build flags of the results" grep -q 'OFDMSIM_C_FLAGS ".*-march=x86-64-v3' "$tmp/portable/generated/version.h"
cmake -S . -B "$tmp/v2" "${quick[@]}" -DOFDMSIM_NATIVE=OFF -DOFDMSIM_ARCH=x86-64-v2 >/dev/null 2>&1
check "OFDMSIM_ARCH=x86-64-v2 for older nodes" grep -q -- '-march=x86-64-v2' "$tmp/v2/compile_commands.json"

cmake -S . -B "$tmp/native" "${quick[@]}" >"$tmp/n.log" 2>&1
check "the default configure is native" grep -q -- '-march=native' "$tmp/native/compile_commands.json"
cmake --install "$tmp/native" --prefix "$tmp/prefix" >"$tmp/install.out" 2>&1
check "cmake --install of a native build fails" test $? -ne 0
check "... saying why and what to do" bash -c 'grep -q "Illegal instruction" "$0" && grep -q -- "-DOFDMSIM_NATIVE=OFF" "$0"' "$tmp/install.out"
check "... before copying anything" test ! -e "$tmp/prefix"

# The Slurm side: build-portable.sh configures with NATIVE=OFF (a stand-in
# cmake records the calls), and the sbatch scripts run that build's binary.
mkdir -p "$tmp/bin"
printf '#!/usr/bin/env bash\necho "$*" >>"%s/cmake.log"\n' "$tmp" >"$tmp/bin/cmake"
chmod +x "$tmp/bin/cmake"
out=$(PATH=$tmp/bin:$PATH scripts/slurm/build-portable.sh "$tmp/bp")
check "build-portable.sh configures with -DOFDMSIM_NATIVE=OFF" grep -q -- '-B .*/bp .*-DOFDMSIM_NATIVE=OFF' "$tmp/cmake.log"
check "... builds ofdmsim there and names it" test "$out" = "$tmp/bp/ofdmsim"
for s in shards mpi merge; do
  check "$s.sbatch runs the portable build by default" grep -q 'ofdmsim=${OFDMSIM:-build-portable/ofdmsim}' "scripts/slurm/$s.sbatch"
done
check "submit-shards.sh builds it when OFDMSIM is not set" grep -q 'build-portable.sh' scripts/slurm/submit-shards.sh
finish
