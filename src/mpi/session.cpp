// MPI initialisation and the small collectives of spx/dist_mpi.hpp.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <limits>

#include "mpi/comm.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/error.hpp"

namespace spx::dist::mpi {

namespace detail {
void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw Error(fmt::format("{}: MPI error {}", what, std::string(text, static_cast<std::size_t>(length))));
}

void agree(Group group, const std::string& error, const char* others, bool first_only) {
  int me = 0;
  check(MPI_Comm_rank(comm(group), &me), "MPI_Comm_rank");
  const int mine = error.empty() ? std::numeric_limits<int>::max() : me;
  int first = 0;
  check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm(group)), "MPI_Allreduce");
  if (!error.empty()) throw JobError(error, !first_only || first == me);
  if (first != std::numeric_limits<int>::max()) throw JobError(others, false);
}
}  // namespace detail

namespace {
int sessions = 0;
bool we_initialised = false;

void require_initialised() {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) throw Error("spx::dist::mpi: MPI is not initialised; create an spx::dist::mpi::Session first");
}
}  // namespace

bool built_with_mpi() { return true; }

Session::Session() {
  int init = 0;
  detail::check(MPI_Initialized(&init), "MPI_Initialized");
  if (!init && sessions == 0) {
    // Funneled: only the main thread calls MPI; the OpenMP threads only compute.
    int provided = 0;
    detail::check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    we_initialised = true;
    // Errors come back as return codes (spx::Error) instead of aborting the job unexplained.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  }
  ++sessions;
}

Session::~Session() {
  if (--sessions == 0 && we_initialised) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
    we_initialised = false;
  }
}

int rank(Group group) {
  require_initialised();
  int r = 0;
  detail::check(MPI_Comm_rank(detail::comm(group), &r), "MPI_Comm_rank");
  return r;
}

int size(Group group) {
  require_initialised();
  int s = 0;
  detail::check(MPI_Comm_size(detail::comm(group), &s), "MPI_Comm_size");
  return s;
}

void barrier(Group group) { detail::check(MPI_Barrier(detail::comm(group)), "MPI_Barrier"); }

double max_over_ranks(double v, Group group) {
  double out = 0;
  detail::check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, detail::comm(group)), "MPI_Allreduce");
  return out;
}

int64_t sum_over_ranks(int64_t v, Group group) {
  int64_t out = 0;
  detail::check(MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_SUM, detail::comm(group)), "MPI_Allreduce");
  return out;
}

double sum_over_ranks(double v, Group group) {
  double out = 0;
  detail::check(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, detail::comm(group)), "MPI_Allreduce");
  return out;
}

void abort_job(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::abort();  // MPI_Abort returned: still end this process
}

}  // namespace spx::dist::mpi
