// asim_pch.h and GoogleTest, precompiled once for every test executable (tests/CMakeLists.txt).
#pragma once

#include "cmake/pch/asim_pch.h"

#include <gtest/gtest.h>
