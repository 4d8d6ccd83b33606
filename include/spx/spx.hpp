// The stable host surface of spx in one include: matrices and their formats, reading and writing,
// generators, conversions, statistics and features, the CPU kernels and CG, the planner's options
// and reports, the performance model, reordering, errors. No CUDA needed to compile it. The GPU
// front door is spx/cuda/sparse_matrix.hpp (with spx/cuda/cg.hpp, spx/cuda/dist.hpp); the other
// spx/cuda headers are the kernel level (docs/ARCHITECTURE.md, "Public surface").
#pragma once

#include "spx/bsr.hpp"
#include "spx/cg.hpp"
#include "spx/column_spans.hpp"
#include "spx/convert.hpp"
#include "spx/cpu.hpp"
#include "spx/csr_c16.hpp"
#include "spx/cuda/device.hpp"
#include "spx/dist.hpp"
#include "spx/error.hpp"
#include "spx/features.hpp"
#include "spx/fem.hpp"
#include "spx/generate.hpp"
#include "spx/io.hpp"
#include "spx/matrix.hpp"
#include "spx/mixed_precision.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"
#include "spx/reorder.hpp"
#include "spx/sell_c16.hpp"
#include "spx/sell_c16_dict.hpp"
#include "spx/stats.hpp"
#include "spx/threads.hpp"
#include "spx/timing.hpp"
#include "spx/version.hpp"
