// Compiled as part of the model stage by the layer_probe_allowed test: the
// model's own headers and util's resolve (the control for the forbidden probe).
#include "model/transformer.h"
#include "util/error.h"
