// The precompiled headers' own targets need a source file (cmake/pch/asim_pch.h).
