/** The robotics sessions surface (SPEC 4.11). */
export { roboticsSurface } from './surface.js';
