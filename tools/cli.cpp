#include "cli.h"

#include <cstdio>
#include <filesystem>

#include "accucheck/number_parse.h"
#include "accucheck/plugin_loader.h"

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
  if (all.size() > 1)
    throw UsageError("--" + std::string(name) + " given " + (all.size() == 2 ? "twice" : std::to_string(all.size()) + " times") +
                     " ('" + all[0] + "' and '" + all[1] + "'): it takes one value");
  return all.front();
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

std::string ulps_text(std::int64_t ulps) {
  if (ulps > -10'000'000 && ulps < 10'000'000) return std::to_string(ulps);
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", static_cast<double>(ulps));
  return text;
}

void load_plugins(Args& args) {
  const auto paths = args.values("plugin");
  try {
    load_plugins_from_environment();
    for (const auto& path : paths) load_plugin(path);
  } catch (const PluginError& e) {
    throw UsageError(std::string("plugin ") + e.what());
  }
  for (const auto& warning : plugin_warnings()) std::fprintf(stderr, "accucheck: warning: %s\n", warning.c_str());
}

std::uint64_t parse_count(const std::string& text, const std::string& option, std::uint64_t low, std::uint64_t high) {
  bool too_large = false;
  const auto value = parse_u64(text, &too_large);
  if (too_large) throw UsageError(option + " " + text + " is too large (at most " + kU64MaxText + ")");
  if (!value) throw UsageError(option + " needs a non-negative integer, got '" + text + "'");
  if (*value < low || *value > high)
    throw UsageError(option + " must be " +
                     (high == UINT64_MAX ? "at least " + std::to_string(low)
                                         : "from " + std::to_string(low) + " to " + std::to_string(high)) +
                     ", got " + text);
  return *value;
}

namespace {

void check_parent_directory(const char* option, const std::string& path) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw UsageError(std::string(option) + " " + path + ": directory '" + parent.string() + "' does not exist");
}

}  // namespace

void check_output_paths(std::initializer_list<std::pair<const char*, std::optional<std::string>>> outputs) {
  namespace fs = std::filesystem;
  for (const auto& [option, path] : outputs) {
    if (!path) continue;
    if (path->empty()) throw UsageError(std::string(option) + " needs a file name");
    std::error_code ec;
    if (fs::is_directory(*path, ec)) throw UsageError(std::string(option) + " " + *path + ": is a directory, not a file");
    check_parent_directory(option, *path);
  }
}

void check_output_directory(const char* option, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw UsageError(std::string(option) + " needs a directory name");
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (!fs::is_directory(path, ec)) throw UsageError(std::string(option) + " " + path + ": exists and is not a directory");
    return;
  }
  check_parent_directory(option, path);
}

}  // namespace accucheck::cli
