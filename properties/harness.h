// The property runner shared by the property suite and the mutant test: RapidCheck generates
// byte vectors, ByteChoiceStream decodes them into workloads (so RapidCheck's shrinking of the
// bytes simplifies the workload), core's finding pipeline (findings.h: find_violations with the
// one property) decides, and a failure is minimized (minimize_finding) and written as a case
// file (write_finding) under the findings directory, with the command that replays it.
//
// Configuration (docs/properties.md):
//   RC_PARAMS                  RapidCheck's: seed=N, max_success=N (cases per property and
//                              workload kind, default 100), noshrink=1, ...
//   ACCUCHECK_FINDINGS         where case files of failures go (default findings/ in the
//                              current directory)
//   ACCUCHECK_MAX_LONG_STEPS   steps of long chains (FamilyLimits::max_long_steps:
//                              10^4 in CI, 10^6 at night)
//   ACCUCHECK_WIDE_ONE_IN      one case in N widened to a boundary shape (shapes.h; default 4,
//                              at most 2^16 values)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "checking/backend.h"
#include "checking/families.h"
#include "checking/properties.h"
#include "engine/findings.h"

namespace accucheck::props {

struct HarnessOptions {
  GenerationLimits limits;
  int max_success = 0;  // cases per run; 0: RC_PARAMS's max_success (default 100)
  bool rapidcheck_shrink = true;
  std::size_t shrink_budget = 3000;  // calls of shrink_workload's predicate
  const Family* family = nullptr;    // fixed family (the uniform baseline); null: the property's
  bool write_finding = true;
  std::string findings_dir;  // where case files go
  bool registered = true;    // the backend is in the CLI's registry (replay command printed)
};

// Options from the environment: limits with ACCUCHECK_MAX_LONG_STEPS, ACCUCHECK_FINDINGS.
HarnessOptions options_from_environment();

struct PropertyRun {
  bool passed = true;
  int cases = 0;                    // cases generated up to and including the first failure (all of them if none)
  std::string message;              // on failure: what failed, the minimal case, where it was written, how to replay
  std::optional<Finding> failure;   // of the minimal case
  std::optional<Workload> minimal;  // the failing workload after RapidCheck's and shrink_workload's shrinking
  std::string case_path;            // the case file written ("" if none)
};

// Runs one property of one backend on workloads of one kind (the backend must run the kind
// and the property must apply to it).
PropertyRun run_property(const Backend& backend, Property property, WorkloadKind kind, const HarnessOptions& options);

// The RapidCheck generator of choice bytes: up to 8 bytes per unit of RapidCheck's size
// (short, simple cases first), each byte drawn from the full range and shrinking toward 0.
rc::Gen<std::vector<std::uint8_t>> choice_bytes();

// Names of registered backends for which the property applies (gtest parameters).
std::vector<std::string> registered_backends_where(Property p);
// A gtest parameter name for a backend name (letters, digits and _ only).
std::string parameter_name(const std::string& backend);

// RapidCheck's seed in effect (from RC_PARAMS or the one it drew).
std::uint64_t rapidcheck_seed();

}  // namespace accucheck::props
