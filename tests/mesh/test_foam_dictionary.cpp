// OpenFOAM's dictionary files as --foam-case reads them: entries, sub-dictionaries, $name
// references, keywords with parentheses, patterns, lists of named dictionaries; and every
// malformed or hostile file refused with its file and line, in bounded memory.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "mesh/foam_dictionary.hpp"
#include "mesh/mesh_error.hpp"
#include "tests/app/temp_folder.hpp"

namespace fvmmini {
namespace {

class FoamDictionaryTest : public ::testing::Test {
 protected:
  std::shared_ptr<const FoamDictionary> parse(const std::string& text) {
    const auto file = folder_.path() / "fvSolution";
    std::ofstream(file) << text;
    return read_foam_dictionary(file, "system/fvSolution");
  }
  /// The message of the MeshError parsing `text` throws ("" when it parses).
  std::string error(const std::string& text) {
    try {
      parse(text);
    } catch (const MeshError& e) {
      return e.what();
    }
    return "";
  }
  testing::TempFolder folder_;
};

TEST_F(FoamDictionaryTest, EntriesDictionariesReferencesAndComments) {
  const auto d = parse(R"foam(/* the tutorial's fvSolution */
FoamFile { version 2.0; format ascii; class dictionary; object fvSolution; }
solvers
{
    p { solver PCG; preconditioner DIC; tolerance 1e-06; relTol 0.05; }  // the pressure
    pFinal { $p; relTol 0; }
    "(U|k)" { solver smoothSolver; smoother symGaussSeidel; }
}
pRef 0;
PISO { nCorrectors 2; pRefValue $pRef; }
div(phi,U) Gauss linearUpwind grad(U);
value uniform (1 0 -2.5e-3);
)foam");
  ASSERT_TRUE(d->find("FoamFile") && d->find("FoamFile")->dictionary);
  const FoamDictionary& solvers = *d->find("solvers")->dictionary;
  EXPECT_EQ(solvers.path(), "solvers");
  const FoamDictionary& p_final = *solvers.find("pFinal")->dictionary;
  EXPECT_EQ(p_final.find("solver")->text(), "PCG");       // from $p
  EXPECT_EQ(p_final.find("relTol")->text(), "0");         // its own, written after $p
  EXPECT_EQ(p_final.path_of("relTol"), "solvers.pFinal.relTol");
  EXPECT_EQ(solvers.find("p")->line, 5);
  // --- a quoted keyword is a pattern: found for a field it matches whole, never by find()
  EXPECT_EQ(solvers.find("U"), nullptr);
  ASSERT_NE(solvers.find_matching("U"), nullptr);
  EXPECT_EQ(solvers.find_matching("U")->dictionary->find("solver")->text(), "smoothSolver");
  EXPECT_EQ(solvers.find_matching("Ux"), nullptr);
  // --- words keep balanced parentheses; lists and numbers are tokens of their own
  EXPECT_EQ(d->find("div(phi,U)")->text(), "Gauss linearUpwind grad(U)");
  EXPECT_EQ(d->find("value")->tokens, (std::vector<std::string>{"uniform", "(", "1", "0", "-2.5e-3", ")"}));
  EXPECT_EQ(d->find("PISO")->dictionary->find("pRefValue")->text(), "0");
}

TEST_F(FoamDictionaryTest, ReferencesAreFoundInTheDictionariesAroundThem) {
  const auto d = parse("tol 1e-6;\na { b { t $tol; } }\nc { tol 1e-9; d { t $tol; } }\n");
  EXPECT_EQ(d->find("a")->dictionary->find("b")->dictionary->find("t")->text(), "1e-6");
  EXPECT_EQ(d->find("c")->dictionary->find("d")->dictionary->find("t")->text(), "1e-9");  // the nearest
}

// blockMeshDict's boundary: a list of named dictionaries, each an element with its entries; every
// token keeps its line, so that an item of a long list is named by its own.
TEST_F(FoamDictionaryTest, ListsOfNamedDictionariesAndTokenLines) {
  const auto d = parse("w wall;\nboundary\n(\n  lid { type $w; faces ((3 7 6 2)); }\n  walls\n  {\n    type patch;\n"
                       "    faces\n    (\n      (0 4 7 3)\n      (1 2 6 5)\n    );\n  }\n);\ncopy $boundary;\n");
  const FoamEntry& boundary = *d->find("boundary");
  EXPECT_EQ(boundary.text(), "( lid {...} walls {...} )");
  ASSERT_EQ(boundary.elements.size(), 2u);
  EXPECT_EQ(boundary.elements[0].keyword, "lid");
  EXPECT_EQ(boundary.elements[0].line, 4);
  EXPECT_EQ(boundary.elements[1].line, 5);
  const FoamDictionary& lid = *boundary.elements[0].dictionary;
  EXPECT_EQ(lid.path(), "boundary.lid");
  EXPECT_EQ(lid.find("type")->text(), "wall");  // $w from the file's top
  const FoamEntry& faces = *boundary.elements[1].dictionary->find("faces");
  EXPECT_EQ(faces.lines, (std::vector<long>{9, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 12}));
  EXPECT_EQ(d->find("copy")->elements.size(), 2u);  // $boundary takes its elements along
  // --- '{' elsewhere in a value is still refused
  EXPECT_EQ(error("a ({ b 1; });\n"), "system/fvSolution:1: '{' inside the value of 'a'");
  EXPECT_EQ(error("a b { c 1; };\n"), "system/fvSolution:1: '{' inside the value of 'a'");
}

TEST_F(FoamDictionaryTest, MalformedFilesNameTheirLine) {
  EXPECT_EQ(error("a 1;\nb { c 2;\n"), "system/fvSolution:3: the dictionary ends without its '}'");
  EXPECT_EQ(error("a 1;\n}\n"), "system/fvSolution:2: '}' without its '{'");
  EXPECT_EQ(error("a 1\n"), "system/fvSolution:1: 'a' has no ';' to end its value");
  EXPECT_EQ(error("a (1 2;\n"), "system/fvSolution:1: ';' inside the value of 'a'");
  EXPECT_EQ(error("a (1 2];\n"), "system/fvSolution:1: unbalanced ']'");
  EXPECT_EQ(error("a $b;\n"), "system/fvSolution:1: '$b': no entry 'b' before it");
  EXPECT_EQ(error("b 1;\na { $b; }\n"), "system/fvSolution:2: '$b' is not a dictionary");
  EXPECT_EQ(error("/* open\n\n"), "system/fvSolution:1: unterminated /* comment");
  EXPECT_EQ(error("a \"open;\n"), "system/fvSolution:1: unterminated string");
  EXPECT_EQ(error("#include \"common\"\n"),
            "system/fvSolution:1: the directive #include is not read: fvmmini maps a self-contained case (write its "
            "entries out)");
}

TEST_F(FoamDictionaryTest, APatternThatIsNoRegularExpressionOrTooLongIsNamed) {
  const auto message = [&](const std::string& text) {
    try {
      parse(text)->find_matching("U");
    } catch (const MeshError& e) {
      return std::string(e.what());
    }
    return std::string("matched");
  };
  EXPECT_EQ(message("\"(U\" { a 1; }\n"), "system/fvSolution:1: '(U' is not a regular expression");
  EXPECT_EQ(message("\"" + std::string(300, '(') + "\" { a 1; }\n"),
            "system/fvSolution:1: a pattern longer than 256 bytes");
}

TEST_F(FoamDictionaryTest, HostileFilesStayBounded) {
  // --- a field's list of values is refused, not read
  std::string long_value = "internalField nonuniform List<scalar> 5000 (";
  for (int i = 0; i < 5000; ++i) long_value += " 1";
  EXPECT_NE(error(long_value + ");\n").find("longer than 4096 tokens"), std::string::npos);
  // --- nesting
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "a { ";
  EXPECT_NE(error(deep).find("nested deeper than 32"), std::string::npos);
  // --- $name copies doubling at every level cannot grow the tree past its bound
  // (each line: <name>i <open> $<name>(i-1)<separator> $<name>(i-1)<close>)
  const auto doubling = [](std::string text, const std::string& name, const char* open, const char* separator,
                           const char* close) {
    for (int i = 1; i < 30; ++i) {
      const std::string previous = "$" + name + std::to_string(i - 1);
      text.append(name).append(std::to_string(i)).append(open).append(previous).append(separator);
      text.append(previous).append(close);
    }
    return text;
  };
  EXPECT_NE(error(doubling("d0 { a 1; b 2; }\n", "d", " { ", "; ", "; }\n")).find("more than 100000 entries"),
            std::string::npos);
  // --- values doubling by $name stop at the token bound
  EXPECT_NE(error(doubling("v0 1 2 3 4;\n", "v", " ", " ", ";\n")).find("longer than 4096 tokens"), std::string::npos);
}

}  // namespace
}  // namespace fvmmini
