// The rule lives beside the service's (src/wire/code-links.ts), which a ticket's body uses too:
// one rule for every link into the code host, imported by both builds.
export * from '../../../src/wire/code-links.js';
