// The spx CLI's OpenMP threads wait passively unless the user chose a policy
// (tools/spx/openmp_wait_policy.cpp). libgomp prints the settings it runs with when
// OMP_DISPLAY_ENV=verbose; spx restarts itself once (for the commands that run CPU products, such
// as bench), so the last block printed is the one in force.
#include <gtest/gtest.h>

#include <string>

#include "cpu/cli_fixture.hpp"

namespace {

using spx::test::CliRun;

class CliOpenmpWait : public spx::test::CliFixture {
 protected:
  // The value libgomp printed last for `name` ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"); skips the test
  // when the OpenMP runtime is not libgomp (nothing printed).
  std::string runtime_setting(const std::string& env, const std::string& name) {
    env_ = "env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose " + env + " ";
    const CliRun r = spx("bench --list");
    EXPECT_EQ(r.status, 0) << r.err;
    const std::string key = name + " = '";
    const auto at = r.err.rfind(key);
    if (at == std::string::npos) return {};
    const auto begin = at + key.size();
    return r.err.substr(begin, r.err.find('\'', begin) - begin);
  }
};

TEST_F(CliOpenmpWait, PassiveByDefault) {
  const std::string spin = runtime_setting("", "GOMP_SPINCOUNT");
  if (spin.empty()) GTEST_SKIP() << "not libgomp: no OMP_DISPLAY_ENV output to check";
  EXPECT_EQ(spin, "0");  // passive: idle threads sleep at once (libgomp's default spins 300000 times)
}

TEST_F(CliOpenmpWait, UserPolicyKept) {
  const std::string policy = runtime_setting("OMP_WAIT_POLICY=active", "OMP_WAIT_POLICY");
  if (policy.empty()) GTEST_SKIP() << "not libgomp: no OMP_DISPLAY_ENV output to check";
  EXPECT_EQ(policy, "ACTIVE");
}

TEST_F(CliOpenmpWait, CommandsWithoutCpuProductsDoNotRestart) {
  env_ = "env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose ";
  const CliRun r = spx("--version");
  EXPECT_EQ(r.status, 0) << r.err;
  std::size_t blocks = 0;
  for (auto at = r.err.find("GOMP_SPINCOUNT"); at != std::string::npos;
       at = r.err.find("GOMP_SPINCOUNT", at + 1))
    ++blocks;
  EXPECT_LE(blocks, 1u) << r.err;  // one OpenMP start (0 when the runtime is not libgomp)
}

TEST_F(CliOpenmpWait, UserSpinCountKept) {
  const std::string spin = runtime_setting("GOMP_SPINCOUNT=1234", "GOMP_SPINCOUNT");
  if (spin.empty()) GTEST_SKIP() << "not libgomp: no OMP_DISPLAY_ENV output to check";
  EXPECT_EQ(spin, "1234");
}

}  // namespace
