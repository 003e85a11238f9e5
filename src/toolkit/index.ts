/** The tool contract and its capability interfaces. */
export * from './tool.js';
