// Lid-driven cavity: the unit square in x-y meshed with triangles (size 1/40), extruded one
// cell thick (z in [0, 0.025]) into prisms. Patches: `movingWall` (y = 1), `fixedWalls`
// (x = 0, x = 1, y = 0), `frontAndBack` (z = 0 and z = 0.025; the reader gives it type empty).
lc = 1.0 / 40;
thickness = 0.025;
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
// ex[0] = back face (z = thickness), ex[1] = volume, ex[2..5] = sides from lines 1..4
ex[] = Extrude {0, 0, thickness} { Surface{1}; Layers{1}; Recombine; };
Physical Surface("movingWall") = {ex[4]};
Physical Surface("fixedWalls") = {ex[2], ex[3], ex[5]};
Physical Surface("frontAndBack") = {1, ex[0]};
Physical Volume("fluid") = {ex[1]};
