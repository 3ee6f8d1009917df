// Specialization to the dispatch (kernels/specialize.h): SPEC_PARAM(k)
// declares a specialization constant standing for params word k, PARAM(k)
// reads it: the constant in a copy the compiler specialized (kSpecialized
// true), else p[k]. The driver folds what the constants decide (loop trip
// counts, divisions, switches) when it compiles a specialized copy.
layout(constant_id = 2000) const bool kSpecialized = false;
#define SPEC_PARAM(k) layout(constant_id = k) const uint sp##k = 0u;
#define PARAM(k) (kSpecialized ? sp##k : p[k])
// For a param read at a computed index: a function whose switch lists the
// kernel's SPEC_PARAMs as SPEC_CASE(k), returning p[k] otherwise.
#define SPEC_CASE(k) case k: return sp##k;
