// The diagnosis of a log that is being opened, begun while its didOpen still crosses the pipe.
//
// A 100 MB didOpen takes about as long to arrive as its text takes to diagnose; done one after
// the other, the editor waited for both. While the transport reads a big message, this reads the
// bytes that have arrived on a thread of its own: it finds the message's big string (the text,
// if the message turns out to open a log), unescapes it in pieces of whole lines and feeds them
// to a diagnoser, on every core. When the message has arrived and is parsed, the didOpen hands
// what was fed to the worker, which goes on from there; any other message drops it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "core/analyze/diagnoser.h"
#include "io/rule_dirs.h"
#include "lsp/protocol/arriving_string.h"

namespace denpex::lsp {

class EarlyDiagnosis {
 public:
  // Starts reading the body at `body` (`size` bytes once whole), which must not move or change
  // until stop().
  EarlyDiagnosis(const char* body, size_t size, std::shared_ptr<const io::LoadedRules> rules);
  ~EarlyDiagnosis();  // stops and joins
  EarlyDiagnosis(const EarlyDiagnosis&) = delete;
  EarlyDiagnosis& operator=(const EarlyDiagnosis&) = delete;

  // The transport's news: the body's first `bytes` are final.
  void filled(size_t bytes);

  // What was fed: a diagnoser given the first `bytes` of the big string's unescaped contents,
  // whole lines, as input 0 (named when its document is known).
  struct Fed {
    std::unique_ptr<core::Diagnoser> diagnoser;
    std::shared_ptr<const io::LoadedRules> rules;
    size_t stringBegin = 0;  // where the string's contents began in the body
    size_t bytes = 0;
  };
  // Stops at the end of the piece under way (a few megabytes at most) and gives what was fed;
  // nullopt when there was no big string or nothing of it was fed. Called before anything
  // changes the body (its parse unescapes it in place).
  std::optional<Fed> stop();
  const char* body() const { return body_; }

 private:
  void run();

  const char* const body_;
  const size_t size_;
  std::shared_ptr<const io::LoadedRules> rules_;
  std::mutex mutex_;
  std::condition_variable cv_;
  size_t filled_ = 0;     // under mutex_
  bool stopping_ = false;  // under mutex_
  // The thread's own until it is joined.
  ArrivingString reader_{size_t{1} << 20};
  std::unique_ptr<core::Diagnoser> diagnoser_;
  size_t fed_ = 0;
  std::thread thread_;
};

}  // namespace denpex::lsp
