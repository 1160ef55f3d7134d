#!/usr/bin/env node
// Builds a publishable package of this repository (sdk/ or cli/) from its TypeScript sources.
// JavaScript comes from esbuild's transform, one output file per source file (no bundling, so a
// class such as SiteHealthError exists once however many entry points load it); declarations
// come from tsc.
//
//   node scripts/build-package.mjs sdk [--out DIR] [--no-types]
//       DIR/esm   ES modules and their .d.ts
//       DIR/cjs   CommonJS and the same .d.ts, under a package.json that says "commonjs", so
//                 Node and TypeScript read both folders in the right module system
//   node scripts/build-package.mjs cli [--out DIR] [--sdk DIR] [--no-types]
//       DIR       ES modules and their .d.ts; `@sitehealth/sdk` stays an import of the installed
//                 package, whose declarations are read from --sdk (default sdk/dist)
//
// DIR defaults to the package's dist/. Tests build into temporary folders with --out.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const name = args[0];
const flag = (f) => {
  const i = args.indexOf(f);
  return i >= 0 ? args[i + 1] : undefined;
};
if (name !== 'sdk' && name !== 'cli') {
  console.error('usage: build-package.mjs sdk|cli [--out DIR] [--sdk DIR] [--no-types]');
  process.exit(2);
}
const pkgDir = path.join(root, name);
const out = path.resolve(flag('--out') ?? path.join(pkgDir, 'dist'));
const sdkDist = path.resolve(flag('--sdk') ?? path.join(root, 'sdk', 'dist'));
const withTypes = !args.includes('--no-types');

const sources = fs
  .readdirSync(path.join(pkgDir, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => path.join(pkgDir, 'src', f));

fs.rmSync(out, { recursive: true, force: true });

const targets = name === 'sdk' ? [{ dir: path.join(out, 'esm'), format: 'esm' }, { dir: path.join(out, 'cjs'), format: 'cjs' }] : [{ dir: out, format: 'esm' }];
for (const { dir, format } of targets) {
  // esbuild's transform sees one file and no package.json, so a CommonJS file keeps the usual
  // interop: `import x from 'openapi-fetch'` reads that package's `exports.default` (its CJS
  // build sets __esModule), where a build would apply Node's ESM rules to our "type": "module"
  // sources and hand over the whole exports object.
  for (const file of sources) {
    const rel = path.relative(path.join(pkgDir, 'src'), file).replace(/\.ts$/, '.js');
    const { code, warnings } = await transform(fs.readFileSync(file, 'utf8'), { loader: 'ts', format, target: 'es2022', sourcefile: file });
    for (const w of warnings) console.warn(`${file}: ${w.text}`);
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), code);
  }
  if (format === 'cjs') fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
}

if (withTypes) {
  // A throwaway tsconfig beside the package's: declarations only, into the first target; for the
  // CLI, `@sitehealth/sdk` resolves to the built SDK's declarations rather than its sources.
  const declDir = targets[0].dir;
  const paths =
    name === 'cli'
      ? {
          '@sitehealth/sdk': [path.join(sdkDist, 'esm', 'index.d.ts')],
          '@sitehealth/sdk/signals': [path.join(sdkDist, 'esm', 'signals', 'index.d.ts')],
          '@sitehealth/sdk/webhooks': [path.join(sdkDist, 'esm', 'webhooks.d.ts')],
        }
      : undefined;
  // In the package's folder, so type packages (@types/node for the CLI) resolve as they do there.
  const tsconfig = path.join(pkgDir, `tsconfig.build-${process.pid}.json`);
  fs.writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { rootDir: path.join(pkgDir, 'src'), outDir: declDir, declaration: true, emitDeclarationOnly: true, noEmit: false, ...(paths && { paths }) },
      include: [path.join(pkgDir, 'src')],
    }),
  );
  try {
    execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { stdio: 'inherit' });
  } finally {
    fs.rmSync(tsconfig, { force: true });
  }
  for (const { dir } of targets.slice(1)) {
    for (const f of fs.readdirSync(declDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.d.ts'))) {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      fs.copyFileSync(path.join(declDir, f), path.join(dir, f));
    }
  }
}
console.log(`build-package: ${name} -> ${path.relative(process.cwd(), out) || '.'}${withTypes ? '' : ' (no declarations)'}`);
