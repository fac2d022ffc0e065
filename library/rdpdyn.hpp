#pragma once
// The public C++ API in one include (docs/library.md): a run from TOML text (parse_config_text) or
// in code (RunBuilder), solved with an engine of the registry (Session::solve) whose records reach
// a RecordObserver, any registered analysis by name (Session::analyse), and (epsilon, delta)
// (Session::epsilon; the conversions of accounting/epsilon_delta.hpp). Errors in a run are
// SpecError (key, value, rule), as the command line reports them.
#include "accounting/epsilon_delta.hpp"
#include "io/config.hpp"
#include "library/run_builder.hpp"
#include "library/session.hpp"
#include "numerics/spec_error.hpp"
#include "rdpdyn_version.hpp"
#include "solver/engine.hpp"
