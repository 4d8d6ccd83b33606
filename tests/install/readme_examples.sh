#!/usr/bin/env bash
# The README's C++ examples built against the installed package, as a new user builds them: install
# the build tree into a scratch prefix, write the README's ```cpp blocks out, configure a project with
# find_package(spx) and only the installed headers, build, run the host example. The GPU block is a
# fragment (it names A, x_device, y_device from the text around it): it is compiled inside a function
# that declares them, where the package was built with CUDA; it does not run.
#
#   readme_examples.sh BUILD_DIR README.md WORK_DIR
set -euo pipefail
build=$1 readme=$2 work=$3
rm -rf "$work"
mkdir -p "$work/project"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1 ||
  { echo "cmake --install failed:"; tail -20 "$work/install.log"; exit 1; }

# The installed headers are the stable surface and a closed set: none includes an spx header that is
# not installed, and the kernel level (docs/ARCHITECTURE.md, "Public surface") is not installed.
open=$(cd "$work/prefix/include" && grep -rhoE '#include "spx/[^"]+"' spx | sed 's/^#include "//; s/"$//' | sort -u |
  while read -r h; do [ -f "$h" ] || echo "$h"; done)
[ -z "$open" ] || { echo "installed headers include spx headers that are not installed: $open"; exit 1; }
for h in spx/cuda/spmv_csr.hpp spx/plan/rules.hpp spx/cuda/vendor.hpp spx/cuda/spmm.hpp; do
  [ ! -e "$work/prefix/include/$h" ] || { echo "$h is kernel level and must not be installed"; exit 1; }
done

# Block n of the README's ```cpp fences.
block() { awk -v want="$1" '/^```cpp/{n++; on=(n==want); next} /^```/{on=0} on' "$readme"; }
block 1 > "$work/project/host_example.cpp"
[ -s "$work/project/host_example.cpp" ] || { echo "README.md: no first \`\`\`cpp block"; exit 1; }
gpu_block=$(block 2)
cuda=$(sed -n 's/^set(SPX_CUDA \(.*\))$/\1/p' "$work/prefix"/lib*/cmake/spx/spxConfig.cmake)

cat > "$work/project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.24)
project(spx_readme_examples LANGUAGES CXX)
find_package(spx REQUIRED)
add_executable(host_example host_example.cpp)
target_compile_features(host_example PRIVATE cxx_std_20)
target_link_libraries(host_example PRIVATE spx::spx)
if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/gpu_fragment.cpp)
  add_executable(gpu_fragment gpu_fragment.cpp)
  target_compile_features(gpu_fragment PRIVATE cxx_std_20)
  target_link_libraries(gpu_fragment PRIVATE spx::spx)
endif()
CMAKE

if [ -n "$gpu_block" ] && [ "$cuda" = "ON" ]; then
  {
    echo '#include <spx/spx.hpp>'
    echo '#include <cstdint>'
    echo '#include <iostream>'
    echo '#include <span>'
    printf '%s\n' "$gpu_block" | grep '^#include'
    echo 'void readme_gpu_example(const spx::Csr<double, int32_t>& A, std::span<const double> x_device,'
    echo '                        std::span<double> y_device) {'
    printf '%s\n' "$gpu_block" | grep -v '^#include'
    echo '}'
    echo 'int main() { return 0; }'
  } > "$work/project/gpu_fragment.cpp"
fi

cmake -S "$work/project" -B "$work/project/build" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log" 2>&1 ||
  { echo "configuring against the installed package failed:"; tail -30 "$work/configure.log"; exit 1; }
cmake --build "$work/project/build" > "$work/build.log" 2>&1 ||
  { echo "building the README examples against the installed package failed:"; tail -40 "$work/build.log"; exit 1; }
"$work/project/build/host_example" > "$work/run.log" 2>&1 ||
  { echo "the README's host example failed:"; tail -20 "$work/run.log"; exit 1; }
grep -q "reference" "$work/run.log" || { echo "the README's host example printed no result:"; cat "$work/run.log"; exit 1; }
echo "README examples built against $work/prefix (CUDA: ${cuda:-OFF}; GPU fragment compiled: $([ -f "$work/project/gpu_fragment.cpp" ] && echo yes || echo no))"
