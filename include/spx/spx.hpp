// Everything public in spx's host library.
#pragma once

#include "spx/convert.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/device.hpp"
#include "spx/dist.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/generate.hpp"
#include "spx/io.hpp"
#include "spx/matrix.hpp"
#include "spx/mixed_precision.hpp"
#include "spx/stats.hpp"
#include "spx/version.hpp"
