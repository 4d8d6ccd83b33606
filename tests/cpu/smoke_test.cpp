#include <gtest/gtest.h>

#include "spx/version.hpp"

TEST(Smoke, VersionString) { EXPECT_STREQ(spx::kVersionString, "0.1.0"); }
