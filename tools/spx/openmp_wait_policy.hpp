// The spx CLI's OpenMP threads wait passively (sleep) between parallel regions unless the user
// chose otherwise (docs/cpu-backend.md, "Waiting threads").
#pragma once

namespace spx::cli {

// True when the user set neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT (libgomp's spin count, which
// overrides the policy): only then does spx choose the policy. Arguments: the variables' values,
// nullptr when unset.
bool wants_default_wait_policy(const char* wait_policy, const char* spin_count);

// Called first in main(): for the commands that time or iterate CPU products, when
// wants_default_wait_policy(), sets OMP_WAIT_POLICY=passive and restarts this program with the same
// arguments; returns when no restart is needed or it failed (then the OpenMP runtime's default
// stays).
void restart_with_passive_openmp_waiting(int argc, char** argv);

}  // namespace spx::cli
