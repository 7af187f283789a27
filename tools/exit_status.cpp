#include "exit_status.hpp"

#include "command.hpp"

#include <new>

namespace eqsat::tools {

int report_escaped_error(std::exception_ptr error, std::ostream& err) {
  try {
    std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    err << "error: out of memory; lower the input sizes, --node-limit or --memory-limit\n";
    return UserError;
  } catch (const std::exception& e) {
    err << "eqsat: internal error: " << e.what() << "\n";
  } catch (...) {
    err << "eqsat: internal error: an exception of unknown type\n";
  }
  return InternalBug;
}

}  // namespace eqsat::tools
