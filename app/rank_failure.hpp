#pragma once
// Failures of a run on several ranks. One that every rank raises together (the ranks agreed on it
// through a collective: the root's mesh failed, a piece of output could not be written) is a
// CollectiveFailure: rank 0 reports it and every rank ends with the same exit status, cleanly.
// What one rank raises alone ends the run through Communicator::abort (main.cpp).

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

#include "comm/communicator.hpp"

namespace fvmmini {

class CollectiveFailure : public std::runtime_error {
 public:
  CollectiveFailure(const std::string& message, int status) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

/// Run f on the root only; if it throws, the root rethrows and every other rank throws a
/// CollectiveFailure with the exit status status_of(the exception) (1 unless the caller says).
template <class F, class Status>
void on_root_for_all(const Communicator& comm, F&& f, Status&& status_of) {
  std::string outcome;  // empty: done; else the exit status, a space, the message
  std::exception_ptr error;
  if (comm.is_root()) {
    try {
      f();
    } catch (const std::exception& e) {
      error = std::current_exception();
      outcome = std::to_string(status_of(e)) + " " + e.what();
    }
  }
  comm.broadcast(outcome);
  if (outcome.empty()) return;
  if (error) std::rethrow_exception(error);
  const auto space = outcome.find(' ');
  throw CollectiveFailure(outcome.substr(space + 1), std::stoi(outcome.substr(0, space)));
}

}  // namespace fvmmini
