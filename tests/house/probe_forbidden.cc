// Compiled as part of the model stage by the layer_probe_forbidden test: the
// model may not see the formula language, so this include must not resolve.
#include "logic/formula.h"
#include "model/transformer.h"
