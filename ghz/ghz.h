/* ghz/ghz.h: umbrella header. Include this, link ghz::codec. */
#ifndef GHZ_GHZ_H
#define GHZ_GHZ_H

#include "ghz/version.h"
#include "ghz/types.h"
#include "ghz/errors.h"
#include "ghz/codec/codec.h"
#include "ghz/homo/homo.h"

#endif
