# device batch: build, then the GPU tests alone (fast feedback)
set -u
( time (cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DOFDMSIM_CUDA=ON -DOFDMSIM_DEPS_PREFIX=$PWD/.deps > $OUT/cmake.log 2>&1 && cmake --build build-gpu -j40 > $OUT/build.log 2>&1) ) 2>&1 | tail -3
grep -E "error|Error" $OUT/build.log | head -20
cd build-gpu && timeout 200 ctest -L gpu -j1 --output-on-failure > $OUT/gputests.log 2>&1; echo "ctest rc $?"
grep -E "Test +#|tests passed|FAILED|Failed" $OUT/gputests.log | tail -30
