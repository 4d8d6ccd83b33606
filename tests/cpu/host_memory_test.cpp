// The host-memory check every size-from-input allocation makes first (src/common/host_memory.hpp):
// $SPX_HOST_MEMORY_LIMIT caps it, and a malformed value is an error naming the variable.
#include "common/host_memory.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "spx/error.hpp"
#include "spx/generate.hpp"

namespace {

// Sets the variable for one test and restores the environment after it.
class ScopedLimit {
 public:
  explicit ScopedLimit(const char* value) { setenv(spx::detail::kHostMemoryLimitVariable, value, 1); }
  ~ScopedLimit() { unsetenv(spx::detail::kHostMemoryLimitVariable); }
};

TEST(HostMemory, TheVariableCapsWhatIsAvailable) {
  const ScopedLimit limit("1048576");
  EXPECT_LE(spx::detail::host_memory_available(), 1048576u);
  try {
    spx::detail::require_host_memory(4.0 * 1048576, "the test's matrix");
    FAIL() << "4 MiB passed a 1 MiB limit";
  } catch (const spx::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("the test's matrix needs about 4.0 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("1.0 MiB available"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(spx::detail::require_host_memory(1000.0, "a small one"));
}

TEST(HostMemory, GeneratorsRefuseBeyondTheCap) {
  const ScopedLimit limit("1048576");
  EXPECT_THROW((spx::gen::generate<double, int32_t>("stencil27:n=40")), spx::Error);
  EXPECT_NO_THROW((spx::gen::generate<double, int32_t>("stencil27:n=4")));
}

TEST(HostMemory, AMalformedVariableIsAnErrorNamingIt) {
  for (const char* bad : {"-5", "12abc", "0", "lots", "99999999999999999999999"}) {
    const ScopedLimit limit(bad);
    try {
      (void)spx::detail::host_memory_available();
      ADD_FAILURE() << "accepted " << bad;
    } catch (const spx::Error& e) {
      EXPECT_NE(std::string(e.what()).find("SPX_HOST_MEMORY_LIMIT"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
