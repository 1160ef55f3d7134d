/** The SDK's version, sent in `User-Agent: sitehealth-sdk/<version>`. Kept equal to package.json (a test checks). */
export const VERSION = '0.1.0';
