#include "spx/version.hpp"

namespace spx {
bool built_with_cuda() {
#ifdef SPX_HAVE_CUDA
  return true;
#else
  return false;
#endif
}
}  // namespace spx
