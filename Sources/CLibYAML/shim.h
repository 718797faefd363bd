/* libyaml's event parser, for the check of a YAML document's shape before Yams builds its tree
   (Sources/Drivers/YAML/YAMLShape.swift), declared like every other C library Parley uses rather
   than reached through Yams' own copy, which Yams publishes to no one. Yams still links that copy's
   objects into the program, and the program's calls bind to them first: both are libyaml 0.2.5,
   whose structures are the same. */
#include <yaml.h>
