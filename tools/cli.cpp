#include "cli.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "numerics/number_parse.h"
#include "plugins/plugin_loader.h"

namespace accucheck::cli {
namespace {

constexpr std::size_t kHelpWidth = 100;    // columns of --help
constexpr std::size_t kOptionColumn = 26;  // where option descriptions start

bool is_flag(const CLI::Option& o) { return o.get_expected_max() == 0; }
bool is_repeatable(const CLI::Option& o) { return o.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll; }
bool is_single_valued(const CLI::Option& o) {
  return !is_flag(o) && !o.get_positional() && o.get_multi_option_policy() == CLI::MultiOptionPolicy::Throw;
}

// Words of `text` in lines of at most `width` columns, later lines indented by `indent` spaces.
std::string wrapped(const std::string& text, std::size_t width, std::size_t indent, std::size_t first_column) {
  std::istringstream words(text);
  std::string out, word;
  std::size_t column = first_column;
  bool first = true;
  while (words >> word) {
    if (!first && column + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out;
}

// --help: "usage: accucheck check [--backend GLOB]... [--minutes M | --cases N] ...", the summary,
// then the arguments and the options with their help text. The synopsis is made from the
// declarations: [optional], repeatable..., [exclusive | options], required ones bare.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(const std::vector<CommandLine::ArgumentCount>& counts) : counts_(counts) {}

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const override {
    std::vector<std::string> items;
    std::vector<const CLI::Option*> shown;
    for (const CLI::Option* o : app->get_options()) {
      if (o == app->get_help_ptr() || o->get_group().empty() || std::find(shown.begin(), shown.end(), o) != shown.end())
        continue;
      if (o->get_excludes().empty()) {
        items.push_back(synopsis_item(*o));
        continue;
      }
      std::string item = synopsis_item(*o, false);
      for (const CLI::Option* other : o->get_excludes()) {
        item += " | " + synopsis_item(*other, false);
        shown.push_back(other);
      }
      items.push_back("[" + item + "]");
    }
    std::string synopsis = "usage: accucheck " + app->get_name();
    std::size_t column = synopsis.size();
    for (const auto& item : items) {
      if (column + 1 + item.size() > kHelpWidth) {
        synopsis += "\n       ";
        column = 7;
      }
      synopsis += " " + item;
      column += 1 + item.size();
    }
    std::string out = synopsis + "\n\n" + wrapped(app->get_description(), kHelpWidth, 0, 0) + "\n";
    const auto positional = app->get_options([](const CLI::Option* o) { return o->get_positional(); });
    const auto named =
        app->get_options([](const CLI::Option* o) { return !o->get_positional() && !o->get_group().empty(); });
    if (!positional.empty()) out += "\narguments:\n" + table(positional);
    out += "\noptions:\n" + table(named);
    return out;
  }

 private:
  // One option in the synopsis; `bracketed` unless required.
  std::string synopsis_item(const CLI::Option& o, bool bracketed = true) const {
    if (o.get_positional()) {
      const auto count = std::find_if(counts_.begin(), counts_.end(), [&](const auto& c) { return c.option == &o; });
      const std::string name = o.get_name(true, false);
      const std::string one = count != counts_.end() && count->min == 0 ? "[" + name + "]" : name;
      return takes_many(o) ? one + "..." : one;
    }
    std::string text = o.get_name();
    if (!is_flag(o)) text += " " + o.get_type_name();
    if (bracketed && !o.get_required()) text = "[" + text + "]";
    return is_repeatable(o) ? text + "..." : text;
  }

  bool takes_many(const CLI::Option& o) const {
    if (!o.get_positional()) return is_repeatable(o);
    const auto count = std::find_if(counts_.begin(), counts_.end(), [&](const auto& c) { return c.option == &o; });
    return count == counts_.end() || count->max > 1;
  }

  std::string table(const std::vector<const CLI::Option*>& options) const {
    std::string out;
    for (const CLI::Option* o : options) {
      std::string name = "  " + (o->get_positional() ? o->get_name(true, false) : o->get_name(false, true));
      if (!o->get_positional() && !is_flag(*o)) name += " " + o->get_type_name();
      if (takes_many(*o)) name += " ...";
      if (name.size() + 1 >= kOptionColumn)
        name += "\n" + std::string(kOptionColumn, ' ');
      else
        name += std::string(kOptionColumn - name.size(), ' ');
      out += name + wrapped(o->get_description(), kHelpWidth, kOptionColumn, kOptionColumn) + "\n";
    }
    return out;
  }

  const std::vector<CommandLine::ArgumentCount>& counts_;
};

void check_parent_directory(const std::string& option, const std::string& path) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    throw UsageError(option + " " + path + ": directory '" + parent.string() + "' does not exist");
}

// Outputs are checked before a long run, so that it cannot fail at its end.
void check_output_file(const std::string& option, const std::string& path) {
  if (path.empty()) throw UsageError(option + " needs a file name");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError(option + " " + path + ": is a directory, not a file");
  check_parent_directory(option, path);
}

void check_output_directory(const std::string& option, const std::string& path) {
  if (path.empty()) throw UsageError(option + " needs a directory name");
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    if (!std::filesystem::is_directory(path, ec))
      throw UsageError(option + " " + path + ": exists and is not a directory");
    return;
  }
  check_parent_directory(option, path);
}

}  // namespace

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

double parse_minutes(const std::string& text) {
  char* end = nullptr;
  const double minutes = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(minutes > 0) || minutes > 100000)
    throw UsageError("--minutes needs a number of minutes above 0 and at most 100000 (about 69 days), got '" + text +
                     "'");
  return minutes;
}

CommandLine::CommandLine(std::string command, std::string summary, std::vector<std::string> args)
    : command_(std::move(command)),
      args_(std::move(args)),
      app_(std::make_unique<CLI::App>(std::move(summary), command_)) {
  // Leftovers are named by parse() ("unknown option --colour"), not by CLI11's ExtrasError.
  app_->allow_extras();
  app_->set_help_flag("-h,--help", "print this synopsis and exit");
  app_->formatter(std::make_shared<HelpFormatter>(argument_counts_));
}

CommandLine::~CommandLine() = default;

CLI::Option* CommandLine::flag(const std::string& name, bool& target, const std::string& help) {
  return app_->add_flag(name, target, help)->disable_flag_override();
}

CLI::Option* CommandLine::option(const std::string& name, const std::string& placeholder, const std::string& help,
                                 std::function<void(const std::string&)> store) {
  // CLI11's MultiOptionPolicy::Throw: a second occurrence is refused, never "the last one wins".
  return app_->add_option_function<std::string>(name, std::move(store), help)
      ->type_name(placeholder)
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

CLI::Option* CommandLine::text(const std::string& name, std::optional<std::string>& target,
                               const std::string& placeholder, const std::string& help) {
  return option(name, placeholder, help, [&target](const std::string& text) { target = text; });
}

CLI::Option* CommandLine::repeatable_option(const std::string& name, const std::string& placeholder,
                                            const std::string& help, std::function<void(const std::string&)> store) {
  // One value per occurrence ("--backend a b": b is an argument), every occurrence kept.
  return app_
      ->add_option_function<std::vector<std::string>>(
          name,
          [store = std::move(store)](const std::vector<std::string>& values) {
            for (const auto& value : values) store(value);
          },
          help)
      ->type_name(placeholder)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

CLI::Option* CommandLine::repeatable(const std::string& name, std::vector<std::string>& target,
                                     const std::string& placeholder, const std::string& help) {
  return repeatable_option(name, placeholder, help, [&target](const std::string& text) { target.push_back(text); });
}

CLI::Option* CommandLine::format(const std::string& name, std::optional<Format>& target, const std::string& help,
                                 bool fp8_too) {
  return option(name, "F", help, [&target, name, fp8_too](const std::string& text) {
    target = fp8_too ? parse_any_format(text) : parse_format(text);
    if (!target)
      throw UsageError(name + ": unknown format '" + text + "' (f64, f32, f16, bf16" +
                       (fp8_too ? ", e4m3, e5m2)" : ")"));
  });
}

CLI::Option* CommandLine::output_file(const std::string& name, std::optional<std::string>& target,
                                      const std::string& help) {
  checks_.push_back([&target, name] {
    if (target) check_output_file(name, *target);
  });
  return text(name, target, "FILE", help);
}

CLI::Option* CommandLine::output_directory(const std::string& name, std::string& target, const std::string& help) {
  checks_.push_back([&target, name] { check_output_directory(name, target); });
  return option(name, "DIR", help, [&target](const std::string& text) { target = text; });
}

CLI::Option* CommandLine::output_directory(const std::string& name, std::optional<std::string>& target,
                                           const std::string& help) {
  checks_.push_back([&target, name] {
    if (target) check_output_directory(name, *target);
  });
  return text(name, target, "DIR", help);
}

void CommandLine::plugins(BackendSources& sources) {
  repeatable("--plugin", sources.libraries, "LIB.so",
             "load the backends of a plugin (after those of ACCUCHECK_PLUGINS=A.so:B.so; docs/plugins.md)");
  repeatable("--python", sources.python_files, "FILE.py",
             "load the backends FILE.py registers with @accucheck.backend (docs/python.md)");
}

CLI::Option* CommandLine::arguments(const std::string& placeholder, std::vector<std::string>& target,
                                    const std::string& help, std::size_t min, std::size_t max,
                                    std::string count_error) {
  CLI::Option* o = app_->add_option(placeholder, target, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  argument_counts_.push_back({o, min, max, std::move(count_error)});
  return o;
}

void CommandLine::exclusive(CLI::Option* a, CLI::Option* b) {
  a->excludes(b);  // CLI11 records the exclusion on both options
}

CLI::Option* CommandLine::required(CLI::Option* o) { return o->required(); }

CLI::Option* CommandLine::internal(CLI::Option* o) { return o->group(""); }

std::string CommandLine::help() const { return app_->help(); }

bool CommandLine::parse() {
  // --help anywhere, even as another option's value or after a bad one, prints the synopsis
  // before anything is parsed (CLI11 would validate the other options first).
  for (const auto& a : args_)
    if (a == "--help" || a == "-h") {
      std::fputs(help().c_str(), stdout);
      return false;
    }
  try {
    app_->parse(std::vector<std::string>(args_.rbegin(), args_.rend()));  // CLI11 takes them last first
  } catch (const CLI::CallForHelp&) {
    std::fputs(help().c_str(), stdout);
    return false;
  } catch (const CLI::ParseError& e) {
    throw UsageError(usage_message(e));
  }
  bool end_of_options = false;
  for (const auto& extra : app_->remaining()) {
    // CLI11 2.1 keeps the "--" that ends the options among the leftovers.
    if (extra == "--" && !end_of_options) {
      end_of_options = true;
      continue;
    }
    if (extra.size() > 1 && extra[0] == '-') throw UsageError("unknown option " + extra);
    throw UsageError("unexpected argument '" + extra + "': " + command_ + " takes options only (see accucheck " +
                     command_ + " --help)");
  }
  for (const auto& c : argument_counts_) {
    const std::size_t given = c.option->count();
    if (given < c.min || given > c.max) throw UsageError(c.count_error);
  }
  for (const auto& check : checks_) check();
  return true;
}

// CLI11's errors, told as accucheck tells them: the option first, what is wrong with it. CLI11
// 2.1 names the option only in the text of ArgumentMismatch, so that one is found from the
// parser's state where it can be (a second occurrence) and from the text where it cannot.
std::string CommandLine::usage_message(const std::exception& error) const {
  const std::string what = error.what();
  const auto options = app_->get_options();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error)) {
    for (const CLI::Option* o : options)
      if (is_single_valued(*o) && o->count() > 1) {
        const auto& given = o->results();
        return o->get_name() + " given " + (given.size() == 2 ? "twice" : std::to_string(given.size()) + " times") +
               " ('" + given[0] + "' and '" + given[1] + "'): it takes one value";
      }
    for (const CLI::Option* o : options)
      for (const auto& lname : o->get_lnames()) {
        if (what.rfind("--" + lname + ":", 0) == 0) return "--" + lname + " needs a value";
        if (is_flag(*o) && what.rfind(lname + " ", 0) == 0) return "--" + lname + " takes no value";
      }
  }
  if (dynamic_cast<const CLI::ExcludesError*>(&error))
    for (const CLI::Option* o : options)
      for (const CLI::Option* other : o->get_excludes())
        if (o->count() > 0 && other->count() > 0)
          return "give " + o->get_name() + " or " + other->get_name() + ", not both";
  if (dynamic_cast<const CLI::RequiredError*>(&error))
    for (const CLI::Option* o : options)
      if (o->get_required() && o->count() == 0)
        return o->get_name() + " " + o->get_type_name() + " is required: " + o->get_description();
  return what;
}

void load_plugins(const BackendSources& sources) {
  try {
    load_plugins_from_environment();
    for (const auto& path : sources.libraries) load_plugin(path);
  } catch (const PluginError& e) {
    throw UsageError(std::string("plugin ") + e.what());
  }
  if (!sources.python_files.empty()) {
    try {
      for (const auto& file : sources.python_files) load_python_file(file, plugin_options_from_environment());
    } catch (const PluginError& e) {
      throw UsageError(std::string("python ") + e.what());
    }
  }
  for (const auto& warning : plugin_warnings()) std::fprintf(stderr, "accucheck: warning: %s\n", warning.c_str());
}

}  // namespace accucheck::cli
