// spx::Error — the one exception type spx throws for bad input, bad use and device failures.
#pragma once

#include <stdexcept>
#include <string>

namespace spx {

/// Thrown for every problem a caller can act on: malformed files (the message names file and line),
/// invalid matrices (the message names the index), size mismatches, device errors and device
/// out-of-memory. The message is one line, written for a person.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace spx
