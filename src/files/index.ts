/** Files users name: input read bounded and checked, output places checked before anything runs. */
export { errnoText, InputFileError, OutputPathError, unreachable } from './errors.ts';
export { fileKind } from './file-kind.ts';
export { formatBytes, INPUT_LIMITS } from './limits.ts';
export { isMarkedOutput, markAsOutput, OUTPUT_MARKER } from './output-marker.ts';
export { checkOutputPath, ensureDirectory, writeFileAtomic } from './output-path.ts';
export { readInputBytes, readInputFile, type ReadInputOptions } from './read-input.ts';
export { readBytes, sameFile } from './same-file.ts';
export { decodeUtf8, firstInvalidUtf8 } from './utf8.ts';
