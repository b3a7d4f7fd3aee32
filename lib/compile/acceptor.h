// The transformer acceptor of a catalogue language: compiled from its
// formula (compile/compiler.h), or built by the language's named
// construction when it has one (Dyck-k: compile/dyck.h); for a transduction
// task, its transducer (k-hop: compile/khop.h).
#pragma once

#include <string>

#include "compile/compiler.h"
#include "lang/language.h"

namespace softhat::compile {

struct Acceptor {
  model::Transformer model;
  std::string origin;  // "formula" or "construction <name>"
};

// Throws InputError if the language has neither a formula nor a construction.
Acceptor build_acceptor(const lang::Language& language, const CompileOptions& options);

// Whether build_acceptor() can build one.
bool has_acceptor(const lang::Language& language);

}  // namespace softhat::compile
