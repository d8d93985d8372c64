// `ascendsim config check FILE...`, `config show [FILE]`, `config presets` and `config kinds`.

#include <iostream>
#include <memory>
#include <sstream>

#include "spec/kind_registry.h"
#include "spec/machine_settings.h"
#include "spec/memory_fields.h"
#include "spec/spec_writer.h"
#include "spec/system_loader.h"
#include "tools/exit_codes.h"
#include "tools/machine_options.h"
#include "tools/subcommand.h"
#include "tools/topology_tree.h"

namespace ascendsim::tools {
namespace {

struct ConfigOptions {
  std::vector<std::string> files;
  std::string file;
  bool treeOnly = false;
  bool yamlOnly = false;
  bool markdown = false;
  std::string section;
  std::vector<std::string> sets;
};

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// Every registered kind, by family: as text for people, or as the Markdown of docs/kinds.md.
void printKinds(std::ostream& out, bool markdown) {
  const std::vector<kinds::KindInfo> all = kinds::allKinds();
  if (markdown) {
    out << "# Kinds\n\n"
           "Every kind of thing chosen by name, as `ascendsim config kinds --markdown` prints it "
           "from\n"
           "the registrations in the code (this page is generated: a test fails when it differs).\n"
           "docs/architecture.md says how to add one.\n";
  }
  std::string family;
  for (const kinds::KindInfo& k : all) {
    if (k.family != family) {
      family = k.family;
      auto described = kinds::familyDescriptions().find(family);
      const std::string what =
          described == kinds::familyDescriptions().end() ? "" : described->second;
      if (markdown) {
        out << "\n## " << family << "\n\n"
            << what << "\n\n| name | what it is | settings it reads |\n|---|---|---|\n";
      } else {
        out << family << ": " << what << "\n";
      }
    }
    if (markdown) {
      out << "| `" << k.name << "` | " << k.summary << " | " << join(k.settings) << " |\n";
    } else {
      out << "  " << k.name << std::string(k.name.size() < 16 ? 16 - k.name.size() : 1, ' ')
          << k.summary << "\n";
      if (!k.settings.empty())
        out << std::string(18, ' ') << "settings: " << join(k.settings) << "\n";
    }
  }
}

int runCheck(const ConfigOptions& o) {
  int status = kExitOk;
  for (const std::string& f : o.files) {
    try {
      const spec::SystemSpec sys = spec::loadSystemSpec(f);
      std::cout << f << ": ok (" << sys.devices.size() << " device(s), " << sys.switches.size()
                << " switch(es), run mode " << spec::toString(sys.runMode) << ")\n";
    } catch (const spec::ConfigError& e) {
      std::cerr << e.what() << "\n";
      std::cerr << f << ": " << e.diagnostics().size() << " error(s)\n";
      status = kExitBadConfig;
    }
  }
  return status;
}

int runShow(const ConfigOptions& o) {
  try {
    const spec::SystemSpec sys = loadMachine({o.file, o.sets});
    if (!o.treeOnly) {
      std::cout << "# Resolved configuration of "
                << (o.file.empty() ? "the built-in default" : o.file)
                << " (presets expanded, defaults written out)\n";
      std::cout << spec::writeSystemSpecYaml(sys);
    }
    if (o.treeOnly) {
      std::cout << drawTopologyTree(sys);
    } else if (!o.yamlOnly) {
      // Under the YAML the tree is a comment, so the whole output still loads back as a machine.
      std::cout << "\n# PCIe topology\n";
      std::istringstream tree(drawTopologyTree(sys));
      for (std::string line; std::getline(tree, line);) std::cout << "# " << line << "\n";
    }
    return kExitOk;
  } catch (const spec::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadConfig;
  }
}

}  // namespace

void addConfigCommand(CLI::App& command, int& exitCode) {
  auto opts = std::make_shared<ConfigOptions>();
  CLI::App* config = &command;
  config->require_subcommand(1);

  CLI::App* check = config->add_subcommand(
      "check", "Validate config files; prints every error with file:line:column");
  check->add_option("files", opts->files, "YAML files or built-in preset names")->required();
  check->footer("Example: ascendsim config check configs/atlas-800t-a2.yaml my-machine.yaml");
  check->callback([opts, &exitCode] { exitCode = runCheck(*opts); });

  CLI::App* show = config->add_subcommand(
      "show", "Print the fully resolved configuration as YAML and draw the PCIe tree");
  show->add_option("file", opts->file,
                   "YAML file or built-in preset name (default: built-in default)");
  show->add_flag("--tree", opts->treeOnly, "Only draw the PCIe tree");
  show->add_option("--set", opts->sets,
                   "KEY=VALUE: show the machine with this setting changed; repeatable");
  show->add_flag("--yaml", opts->yamlOnly, "Only print the resolved YAML");
  show->footer("Examples:\n  ascendsim config show\n  ascendsim config show atlas-800t-a2 --tree");
  show->callback([opts, &exitCode] { exitCode = runShow(*opts); });

  CLI::App* presets =
      config->add_subcommand("presets", "List the built-in machine and memory presets");
  presets->callback([&exitCode] {
    std::cout << "machines:";
    for (const std::string& n : spec::builtinMachinePresets()) std::cout << " " << n;
    std::cout << "\nmemories:";
    for (const std::string& n : spec::builtinMemoryPresets()) std::cout << " " << n;
    std::cout << "\n";
    exitCode = kExitOk;
  });

  CLI::App* fields = config->add_subcommand(
      "fields",
      "List every setting a config can give, section by section: meaning, default, what it "
      "allows (docs/configuration.md)");
  fields->add_option("--section", opts->section,
                     "Only this section (trace, host, devices[].dma, memory, ...)");
  fields->add_flag("--markdown", opts->markdown,
                   "Print the Markdown tables docs/configuration.md holds");
  fields->callback([opts, &exitCode] {
    const std::vector<spec::SettingsTable> tables = spec::settingsTables();
    std::vector<const spec::SettingsTable*> chosen;
    if (opts->section.empty()) {
      for (const spec::SettingsTable& t : tables) chosen.push_back(&t);
    } else if (const spec::SettingsTable* one = spec::findSettingsTable(tables, opts->section)) {
      chosen.push_back(one);
    } else {
      std::vector<std::string> names;
      for (const spec::SettingsTable& t : tables) names.push_back(t.section);
      std::cerr << "ascendsim config fields: no section '" << opts->section
                << "'; sections: " << join(names) << "\n";
      exitCode = kExitUsage;
      return;
    }
    for (const spec::SettingsTable* t : chosen) {
      if (opts->markdown) {
        if (chosen.size() > 1) std::cout << "### `" << t->section << "`\n\n";
        std::cout << (t->section == "memory" ? spec::memoryFieldsMarkdown()
                                             : spec::settingsMarkdown(t->rows));
        if (chosen.size() > 1) std::cout << "\n";
        continue;
      }
      for (const spec::SettingRow& row : t->rows) {
        const std::string key = t->section + "." + row.key;
        std::cout << key << std::string(key.size() < 40 ? 40 - key.size() : 1, ' ') << row.allowed
                  << " (default " << (row.defaultText.empty() ? "-" : row.defaultText) << ")\n";
      }
    }
    exitCode = kExitOk;
  });

  CLI::App* kindsCommand = config->add_subcommand("kinds",
                                                  "List every registered kind (memory standards, "
                                                  "DRAM models, memory timings, links, commands)");
  kindsCommand->add_flag("--markdown", opts->markdown, "Print docs/kinds.md (Markdown tables)");
  kindsCommand->callback([opts, &exitCode] {
    printKinds(std::cout, opts->markdown);
    exitCode = kExitOk;
  });
}

namespace {
const SubcommandRegistration kRegistered{
    {"subcommand", "config", "Validate and inspect machine configurations", {}, {}},
    addConfigCommand};
}  // namespace

}  // namespace ascendsim::tools
