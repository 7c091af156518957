#include "cli.h"

namespace accucheck::cli {

std::vector<std::string> Args::values(std::string_view name) {
  std::vector<std::string> found;
  const std::string option = "--" + std::string(name);
  for (std::size_t i = 0; i < args_.size();) {
    if (args_[i] == option) {
      if (i + 1 >= args_.size()) throw UsageError(option + " needs a value");
      found.push_back(args_[i + 1]);
      args_.erase(args_.begin() + static_cast<long>(i), args_.begin() + static_cast<long>(i) + 2);
    } else if (args_[i].rfind(option + "=", 0) == 0) {
      found.push_back(args_[i].substr(option.size() + 1));
      args_.erase(args_.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  return found;
}

std::optional<std::string> Args::value(std::string_view name) {
  auto all = values(name);
  if (all.empty()) return std::nullopt;
  return all.back();
}

bool Args::flag(std::string_view name) {
  const std::string option = "--" + std::string(name);
  bool present = false;
  for (std::size_t i = 0; i < args_.size();) {
    if (args_[i] == option) {
      present = true;
      args_.erase(args_.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  return present;
}

std::vector<std::string> Args::positionals() {
  for (const auto& a : args_)
    if (a.size() > 2 && a.rfind("--", 0) == 0) throw UsageError("unknown option " + a);
  return args_;
}

}  // namespace accucheck::cli
