// Where a benchmark result comes from: the source commit and the time it ran.
#pragma once

#include <string>

namespace spx::bench {

// $SPX_COMMIT when set (what a copied tree's owner says it is); else
// `git rev-parse --short=12 HEAD` in the source tree this binary was built from, with "-dirty"
// when tracked files differ; when git or the tree is not available (an installed binary, a
// copied tree), the commit recorded when CMake configured the build; else "unknown".
std::string source_commit();

// Now, as ISO 8601 UTC: "2025-01-31T14:05:09Z".
std::string utc_now_iso8601();

}  // namespace spx::bench
