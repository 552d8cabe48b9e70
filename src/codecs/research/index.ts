/** The research runs surface (SPEC 4.10). */
export { researchSurface } from './surface.js';
