// Kahan-Babuska-Neumaier summation in the storage format (common/compensated_sums.h).
#include "common/compensated_sums.h"
#include "common/per_element.h"

ACCUCHECK_REGISTER_BACKEND(accucheck::impls::per_format<accucheck::impls::NeumaierSum>(
    "neumaier", "neumaier({F})", accucheck::Determinism::bitwise_deterministic,
    "Kahan-Babuska-Neumaier summation in the storage format", accucheck::impls::every_format));
