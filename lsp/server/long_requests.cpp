// Long requests (see server.h): each on a thread of its own, with progress and cancellation.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "lsp/server/server.h"

namespace denpex::lsp {

void Server::LongRequest::begin(const std::string& title) {
  if (token_.is_null()) return;
  server_.notify("$/progress", {{"token", token_}, {"value", {{"kind", "begin"}, {"title", title}, {"cancellable", true}, {"percentage", 0}}}});
  lastPercent_ = 0;
}

void Server::LongRequest::report(int percentage, const std::string& message) {
  percentage = std::clamp(percentage, 0, 100);
  if (token_.is_null() || percentage <= lastPercent_) return;
  lastPercent_ = percentage;
  server_.notify("$/progress", {{"token", token_}, {"value", {{"kind", "report"}, {"message", message}, {"percentage", percentage}}}});
}

void Server::LongRequest::end(const std::string& message) {
  if (token_.is_null()) return;
  server_.notify("$/progress", {{"token", token_}, {"value", {{"kind", "end"}, {"message", message}}}});
}

void Server::reapLongThreads(Reap how) {
  if (how == Reap::kCancelAll) {
    std::lock_guard<std::mutex> lock(queueMutex_);
    for (auto& [id, flag] : running_) flag->store(true);
  }
  for (auto it = longThreads_.begin(); it != longThreads_.end();) {
    if (how != Reap::kFinished || it->done->load()) {
      if (it->thread.joinable()) it->thread.join();
      it = longThreads_.erase(it);
    } else {
      ++it;
    }
  }
}

void Server::runLong(json progressToken, std::function<json(LongRequest&)> work) {
  if (!currentId_) throw std::logic_error("runLong outside a request handler");
  reapLongThreads(Reap::kFinished);
  json id = *currentId_;
  deferred_ = true;
  auto request = std::make_shared<LongRequest>(*this, progressToken.is_string() || progressToken.is_number_integer() ? progressToken : json());
  {
    std::lock_guard<std::mutex> lock(queueMutex_);
    running_[id.dump()] = request->cancelled_;
    // A cancel the reader took between handle()'s look at cancelled_ and this registration went
    // to cancelled_ (the request was not running yet): it applies now.
    if (cancelled_.erase(id.dump())) request->cancelled_->store(true);
  }
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread thread([this, id, request, done, work = std::move(work)] {
    try {
      json result = work(*request);
      if (request->cancelled()) replyError(id, error::kRequestCancelled, "request cancelled");
      else reply(id, result);
    } catch (const LspError& e) {
      replyError(id, e.code, e.what());
    } catch (const std::exception& e) {
      spdlog::error("a long request failed: {}", e.what());
      replyError(id, error::kInternalError, e.what());
    }
    {
      std::lock_guard<std::mutex> lock(queueMutex_);
      running_.erase(id.dump());
    }
    done->store(true);
  });
  longThreads_.push_back({std::move(thread), done});
}

}  // namespace denpex::lsp
