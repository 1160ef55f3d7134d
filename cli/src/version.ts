/** The CLI's version, printed by `sitehealth --version`. Kept equal to package.json (a test checks). */
export const VERSION = '0.1.0';
