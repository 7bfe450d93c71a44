// The 3-D lid-driven cavity on tetrahedra: the unit cube, cells of size about h (default 1/16).
// Patches: `movingWall` (y = 1), `fixedWalls` (the other five faces).
// gmsh -3 -format msh41 -setnumber h 0.0625 cavity3d_tet.geo -o cavity3d_tet.msh
SetFactory("OpenCASCADE");
DefineConstant[ h = {0.0625, Name "h"} ];
Box(1) = {0, 0, 0, 1, 1, 1};
// OpenCASCADE numbers a box's faces x = 0, x = 1, y = 0, y = 1, z = 0, z = 1
Physical Surface("movingWall") = {4};
Physical Surface("fixedWalls") = {1, 2, 3, 5, 6};
Physical Volume("fluid") = {1};
Mesh.MeshSizeMin = h;
Mesh.MeshSizeMax = h;
Mesh.Algorithm3D = 1;  // Delaunay
