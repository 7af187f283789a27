// eqsat.Error: the one exception type the Python module raises for a user
// error (a located diagnostic, an ill-typed op, a bad input array, a
// run-time error of the executor).
#pragma once

#include <stdexcept>

namespace eqsat::python {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace eqsat::python
